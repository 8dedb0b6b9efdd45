import { plainFormatter, type EventFields } from '../formatter';

/** `user_status` events. */
export interface UserStatusEvent {
  type: 'user_status';
  user_id: number;
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

export const userStatusEvent = (fields: EventFields<UserStatusEvent>): UserStatusEvent => ({
  ...fields,
  type: 'user_status',
});

export const userStatusFormatter = plainFormatter<UserStatusEvent>();
