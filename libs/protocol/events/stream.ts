import type { ApiChannel, JsonValue } from '../records';
import {
  accepts,
  clientForm,
  defineFormatter,
  type ClientForm,
  type EventFields,
} from '../formatter';

/** `stream` events. */
export type StreamEvent =
  | { type: 'stream'; op: 'create'; streams: ApiChannel[]; for_unarchiving?: boolean }
  | {
      type: 'stream';
      op: 'delete';
      streams: ApiChannel[];
      /**
       * The channel was archived: a client with `archived_channels` keeps archived channels (its
       * register lists them) and learns of it by the `is_archived` update alone.
       */
      internal?: { archiving: true };
    }
  | ({ type: 'stream'; op: 'update'; stream_id: number; name: string } & StreamPropertyChange);

/** One changed property of a channel, with the companions Zulip sends along. */
export interface StreamPropertyChange {
  property: string;
  value: JsonValue;
  rendered_description?: string;
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
}

export const streamEvent = (fields: EventFields<StreamEvent>): StreamEvent => ({
  ...fields,
  type: 'stream',
});

export const streamFormatter = defineFormatter({
  reads: ['eventTypes', 'capabilities'],
  owner: () => [],
  format(event: StreamEvent, settings): ClientForm<StreamEvent>[] {
    if (
      event.op === 'delete' &&
      event.internal?.archiving &&
      settings.capabilities.archived_channels
    ) {
      return [];
    }
    return accepts(settings, 'stream') ? [clientForm(event)] : [];
  },
});
