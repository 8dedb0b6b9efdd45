import { call } from '../api';
import { store } from '../store';
import type { Narrow } from '../types';
import { showView } from './route';
import { VISIBILITY, viewState } from './state';
import { useAction, ActionStatus } from './action';

/** Sets a topic's visibility policy for the reader (`POST /user_topics`). */
export function setTopicVisibility(streamId: number, topic: string, policy: number) {
  return call('POST', '/user_topics', { stream_id: streamId, topic, visibility_policy: policy });
}

/**
 * Beside a conversation's title: for a topic, mute or unmute it and follow or unfollow it (in a
 * muted channel, "unmute" makes the topic show); for a channel, its settings.
 */
export function NarrowActions({ narrow }: { narrow: Narrow }) {
  viewState.sync();
  const action = useAction();
  if (narrow.kind !== 'stream') return null;
  const { streamId, topic } = narrow;
  const settings = (
    <button class="secondary small" onClick={() => showView({ kind: 'channels', streamId })}>
      Channel settings
    </button>
  );
  if (topic === undefined) return <div class="narrow-actions">{settings}</div>;
  const policy = viewState.visibility(streamId, topic);
  const channelMuted = !!store.subscriptions.get(streamId)?.is_muted;
  const muted = policy === VISIBILITY.muted || (channelMuted && policy === VISIBILITY.inherit);
  const followed = policy === VISIBILITY.followed;
  const set = (p: number) => void action.run(() => setTopicVisibility(streamId, topic, p));
  return (
    <div class="narrow-actions">
      <button
        class="secondary small"
        aria-pressed={muted}
        onClick={() =>
          set(muted ? (channelMuted ? VISIBILITY.unmuted : VISIBILITY.inherit) : VISIBILITY.muted)
        }
      >
        {muted ? 'Unmute topic' : 'Mute topic'}
      </button>
      <button
        class="secondary small"
        aria-pressed={followed}
        onClick={() => set(followed ? VISIBILITY.inherit : VISIBILITY.followed)}
      >
        {followed ? 'Unfollow topic' : 'Follow topic'}
      </button>
      {settings}
      {action.error && <ActionStatus action={action} />}
    </div>
  );
}
