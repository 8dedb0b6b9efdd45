import type { UnreadMessageDetails } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `update_message_flags` events. */
export interface UpdateMessageFlagsEvent {
  type: 'update_message_flags';
  op: 'add' | 'remove';
  /** Zulip's name for `op` before feature level 32. */
  operation: 'add' | 'remove';
  flag: string;
  messages: number[];
  all: boolean;
  /** Mark-as-unread only: what clients need to rebuild unread counts. */
  message_details?: Record<string, UnreadMessageDetails>;
}

export const updateMessageFlagsEvent = (
  fields: EventFields<UpdateMessageFlagsEvent>,
): UpdateMessageFlagsEvent => ({ ...fields, type: 'update_message_flags' });

export const updateMessageFlagsFormatter = plainFormatter<UpdateMessageFlagsEvent>();
