import { accepts, defineFormatter, type EventFields } from '../formatter';

/** Messages deleted, in the bulk form (`message_ids`) Zulip sends since feature level 13. */
export type DeleteMessageEvent =
  | {
      type: 'delete_message';
      message_type: 'stream';
      message_ids: number[];
      stream_id: number;
      topic: string;
    }
  | { type: 'delete_message'; message_type: 'private'; message_ids: number[] };

/** The legacy form, one event per message, for queues without bulk_message_deletion. */
export type SingleDeleteMessageEvent = Omit<DeleteMessageEvent, 'message_ids'> & {
  message_id: number;
};

export const deleteMessageEvent = (
  fields: EventFields<DeleteMessageEvent>,
): DeleteMessageEvent => ({ ...fields, type: 'delete_message' });

export const deleteMessageFormatter = defineFormatter({
  reads: ['eventTypes', 'capabilities'],
  owner: () => [],
  format(event: DeleteMessageEvent, settings): (DeleteMessageEvent | SingleDeleteMessageEvent)[] {
    if (!accepts(settings, 'delete_message')) return [];
    if (settings.capabilities.bulk_message_deletion) return [event];
    const { message_ids: ids, ...rest } = event;
    return ids.map((id) => ({ ...rest, message_id: id }));
  },
});
