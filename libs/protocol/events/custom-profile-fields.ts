import type { ApiCustomProfileField } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `custom_profile_fields` events. */
export interface CustomProfileFieldsEvent {
  type: 'custom_profile_fields';
  fields: ApiCustomProfileField[];
}

export const customProfileFieldsEvent = (
  fields: EventFields<CustomProfileFieldsEvent>,
): CustomProfileFieldsEvent => ({ ...fields, type: 'custom_profile_fields' });

export const customProfileFieldsFormatter = plainFormatter<CustomProfileFieldsEvent>();
