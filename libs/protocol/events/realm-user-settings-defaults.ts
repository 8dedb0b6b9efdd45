import type { JsonValue } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `realm_user_settings_defaults` events. */
export interface RealmUserSettingsDefaultsEvent {
  type: 'realm_user_settings_defaults';
  op: 'update';
  property: string;
  value: JsonValue;
}

export const realmUserSettingsDefaultsEvent = (
  fields: EventFields<RealmUserSettingsDefaultsEvent>,
): RealmUserSettingsDefaultsEvent => ({ ...fields, type: 'realm_user_settings_defaults' });

export const realmUserSettingsDefaultsFormatter = plainFormatter<RealmUserSettingsDefaultsEvent>();
