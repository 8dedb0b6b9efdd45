import type { ApiChannel } from '../records';
import { plainFormatter, type EventFields } from '../formatter';

/** `default_streams` events. */
export interface DefaultStreamsEvent {
  type: 'default_streams';
  default_streams: ApiChannel[];
}

export const defaultStreamsEvent = (
  fields: EventFields<DefaultStreamsEvent>,
): DefaultStreamsEvent => ({ ...fields, type: 'default_streams' });

export const defaultStreamsFormatter = plainFormatter<DefaultStreamsEvent>();
