import { plainFormatter, type EventFields } from '../formatter';

/** `invites_changed` events. */
export interface InvitesChangedEvent {
  type: 'invites_changed';
}

export const invitesChangedEvent = (
  fields: EventFields<InvitesChangedEvent>,
): InvitesChangedEvent => ({ ...fields, type: 'invites_changed' });

export const invitesChangedFormatter = plainFormatter<InvitesChangedEvent>();
