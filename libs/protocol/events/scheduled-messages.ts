import { plainFormatter, type EventFields } from '../formatter';

/** `scheduled_messages` events. */
export type ScheduledMessagesEvent =
  | { type: 'scheduled_messages'; op: 'add'; scheduled_messages: object[] }
  | { type: 'scheduled_messages'; op: 'update'; scheduled_message: object }
  | { type: 'scheduled_messages'; op: 'remove'; scheduled_message_id: number };

export const scheduledMessagesEvent = (
  fields: EventFields<ScheduledMessagesEvent>,
): ScheduledMessagesEvent => ({ ...fields, type: 'scheduled_messages' });

export const scheduledMessagesFormatter = plainFormatter<ScheduledMessagesEvent>();
