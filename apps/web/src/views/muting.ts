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
