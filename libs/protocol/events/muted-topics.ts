import { plainFormatter, type EventFields } from '../formatter';

/** `[channel name, topic, muted at (Unix seconds)]`, Zulip's legacy form of a muted topic. */
export type MutedTopic = [string, string, number];

/**
 * The user's muted topics, all of them, sent before each `user_topic` event: the legacy form,
 * which clients that never learned `user_topic` still read (as Zulip does).
 */
export interface MutedTopicsEvent {
  type: 'muted_topics';
  muted_topics: MutedTopic[];
}

export const mutedTopicsEvent = (fields: EventFields<MutedTopicsEvent>): MutedTopicsEvent => ({
  ...fields,
  type: 'muted_topics',
});

export const mutedTopicsFormatter = plainFormatter<MutedTopicsEvent>();
