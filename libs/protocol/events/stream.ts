import type { ApiChannel, JsonValue } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `stream` events. */
export type StreamEvent =
  | { type: 'stream'; op: 'create'; streams: ApiChannel[]; for_unarchiving?: boolean }
  | { type: 'stream'; op: 'delete'; streams: ApiChannel[] }
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

export const streamFormatter = plainFormatter<StreamEvent>();
