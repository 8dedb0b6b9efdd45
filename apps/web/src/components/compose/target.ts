import { dmKey } from '../../narrow';
import { store } from '../../store';
import type { Narrow } from '../../types';

/** Where a message goes: a channel's topic or some people. */
export type Target =
  { kind: 'stream'; streamId: number; topic: string } | { kind: 'dm'; userIds: number[] };

/** Where the box writes in a narrow: a narrow of neither kind keeps the previous target. */
export function targetOf(narrow: Narrow | null, previous: Target | null): Target | null {
  if (narrow?.kind === 'stream')
    return { kind: 'stream', streamId: narrow.streamId, topic: narrow.topic ?? '' };
  if (narrow?.kind === 'dm') return { kind: 'dm', userIds: narrow.userIds };
  return previous;
}

/** Which conversation a target is, whatever the case of its topic. */
export const targetKey = (t: Target | null) =>
  !t
    ? ''
    : t.kind === 'stream'
      ? `s${t.streamId}:${t.topic.toLowerCase()}`
      : `d${dmKey(t.userIds, store.me)}`;
