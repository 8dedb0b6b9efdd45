import type { ApiScheduledMessage } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `scheduled_messages` events. */
export type ScheduledMessagesEvent =
  | { type: 'scheduled_messages'; op: 'add'; scheduled_messages: ApiScheduledMessage[] }
  | { type: 'scheduled_messages'; op: 'update'; scheduled_message: ApiScheduledMessage }
  | { type: 'scheduled_messages'; op: 'remove'; scheduled_message_id: number };

export const scheduledMessagesEvent = (
  fields: EventFields<ScheduledMessagesEvent>,
): ScheduledMessagesEvent => ({ ...fields, type: 'scheduled_messages' });

export const scheduledMessagesFormatter = plainFormatter<ScheduledMessagesEvent>();
