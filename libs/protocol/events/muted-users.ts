import { plainFormatter, type EventFields } from '../formatter';

/** `muted_users` events. */
export interface MutedUsersEvent {
  type: 'muted_users';
  muted_users: { id: number; timestamp: number }[];
}

export const mutedUsersEvent = (fields: EventFields<MutedUsersEvent>): MutedUsersEvent => ({
  ...fields,
  type: 'muted_users',
});

export const mutedUsersFormatter = plainFormatter<MutedUsersEvent>();
