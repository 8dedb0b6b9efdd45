import { useRef } from 'preact/hooks';
import { call } from '../../api';
import { store } from '../../store';
import type { Target } from './target';

/** Tells the target's people that the user started or stopped typing (`/typing`). */
export type Typing = (op: 'start' | 'stop') => void;

/** Typing notifications for the target: "start" at most every 10 s, "stop" once after them. */
export function useTyping(target: Target | null): Typing {
  const typingSent = useRef(0);
  return (op) => {
    if (!target) return;
    if (op === 'start' && Date.now() - typingSent.current < 10_000) return;
    if (op === 'stop' && !typingSent.current) return;
    typingSent.current = op === 'start' ? Date.now() : 0;
    const to =
      target.kind === 'stream'
        ? { type: 'stream', stream_id: target.streamId, topic: target.topic }
        : { type: 'direct', to: target.userIds.filter((id) => id !== store.me) };
    void call('POST', '/typing', { op, ...to }).catch(() => undefined);
  };
}

/** Who else is typing where the box writes. */
export function TypingNotice({ target }: { target: Target | null }) {
  const place = target
    ? store.typingPlace(
        target.kind === 'stream'
          ? { kind: 'stream', streamId: target.streamId, topic: target.topic }
          : { kind: 'dm', userIds: target.userIds },
      )
    : '';
  const typists = store.typing.filter((t) => t.place === place && t.until > Date.now());
  return (
    <p class="typing" aria-live="polite">
      {typists.length > 0 &&
        `${typists.map((t) => store.userName(t.userId)).join(', ')} ${typists.length > 1 ? 'are' : 'is'} typing…`}
    </p>
  );
}
