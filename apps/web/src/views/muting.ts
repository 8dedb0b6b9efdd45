import { store } from '../store';
import type { Message } from '../types';
import { VISIBILITY, viewState } from './state';

/** Whether a channel's topic is out of the reader's way: muted, or in a muted channel and not followed or unmuted. */
export function topicMuted(streamId: number, topic: string): boolean {
  const policy = viewState.visibility(streamId, topic);
  if (policy === VISIBILITY.muted) return true;
  if (policy === VISIBILITY.unmuted || policy === VISIBILITY.followed) return false;
  const sub = store.subscriptions.get(streamId) as { is_muted?: boolean } | undefined;
  return !!sub?.is_muted;
}

/** Whether the combined feed and the inbox leave a message out, as Zulip's do. */
export function messageMuted(m: Message): boolean {
  if (viewState.mutedUsers.has(m.sender_id)) return true;
  return m.type === 'stream' && topicMuted(m.stream_id!, m.subject);
}

/** What muting currently covers: the feed's filtered list is made again when it changes. */
function mutingKey(): string {
  const channels = [...store.subscriptions.values()].filter((s) => s.is_muted);
  return [
    [...viewState.mutedUsers].join(),
    [...viewState.userTopics].map(([topic, policy]) => `${topic}=${policy}`).join(),
    channels.map((s) => s.stream_id).join(),
  ].join('|');
}

const feeds = new WeakMap<Message[], { key: string; shown: Message[] }>();

/**
 * The combined feed's messages as Zulip's `in:home` shows them: without muted topics, muted
 * channels (unless the topic is unmuted or followed) or muted people. The same array while
 * nothing changes, so the list does not draw again.
 */
export function feedMessages(all: Message[]): Message[] {
  viewState.sync();
  const key = mutingKey();
  const cached = feeds.get(all);
  if (cached?.key === key) return cached.shown;
  const kept = all.filter((m) => !messageMuted(m));
  const shown = kept.length === all.length ? all : kept;
  feeds.set(all, { key, shown });
  return shown;
}
