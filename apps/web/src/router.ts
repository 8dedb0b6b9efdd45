import { at } from '../../../libs/core/at';
import { dmKey } from './narrow';
import type { Narrow, NarrowTerm } from './types';

/**
 * The page's addresses, as Zulip's web app spells them: `#narrow/<operator>/<operand>/...` for
 * a message list (`#narrow/channel/7/topic/lunch`, `#narrow/dm/3,4`, `#narrow/is/starred`,
 * `.../near/123` for a permalink), `#feed` for every message, and `#<view>/<more>` for the other
 * views (`#inbox`, `#settings/profile`).
 */
export type Route =
  | { kind: 'narrow'; narrow: Narrow; near?: number }
  | { kind: 'view'; name: string; path: string[] };

/** Zulip's hash encoding: URI encoding with `.` standing for `%`. */
export const encodeHashPart = (s: string) =>
  encodeURIComponent(s).replace(/\./g, '%2E').replace(/%/g, '.');

export function decodeHashPart(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\.([0-9A-Fa-f]{2})/g, '%$1'));
  } catch {
    return s;
  }
}

/** A channel's or people's operand: its leading number (`7-general`, `3,4-group`). */
const ids = (operand: string) =>
  (/^[\d,]+/.exec(operand)?.[0] ?? '').split(',').filter(Boolean).map(Number);

export function parseHash(hash: string): Route | null {
  const parts = hash.replace(/^#/, '').split('/');
  if (!parts[0]) return null;
  if (parts[0] === 'feed' || parts[0] === 'all_messages')
    return { kind: 'narrow', narrow: { kind: 'feed' } };
  if (parts[0] !== 'narrow')
    return { kind: 'view', name: parts[0], path: parts.slice(1).map(decodeHashPart) };
  const terms: NarrowTerm[] = [];
  let near: number | undefined;
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const word = at(parts, i);
    const negated = word.startsWith('-');
    const operator = word.replace(/^-/, '');
    const operand = decodeHashPart(at(parts, i + 1));
    if (operator === 'near' || operator === 'with') near = Number(operand) || undefined;
    else
      terms.push({
        operator: operator === 'stream' ? 'channel' : operator === 'pm-with' ? 'dm' : operator,
        operand,
        negated,
      });
  }
  const plain = terms.every((t) => !t.negated);
  const [a, b] = terms;
  const [streamId] = a?.operator === 'channel' ? ids(String(a.operand)) : [];
  if (
    plain &&
    streamId !== undefined &&
    (terms.length === 1 || (terms.length === 2 && b?.operator === 'topic'))
  )
    return {
      kind: 'narrow',
      narrow: { kind: 'stream', streamId, topic: b ? String(b.operand) : undefined },
      near,
    };
  if (plain && terms.length === 1 && a?.operator === 'dm' && ids(String(a.operand)).length)
    return { kind: 'narrow', narrow: { kind: 'dm', userIds: ids(String(a.operand)) }, near };
  if (!terms.length) return { kind: 'narrow', narrow: { kind: 'feed' }, near };
  const typed = terms.map((t) =>
    ['sender', 'channel', 'id'].includes(t.operator) && /^\d+$/.test(String(t.operand))
      ? { ...t, operand: Number(t.operand) }
      : t.operator === 'dm' && ids(String(t.operand)).length
        ? { ...t, operand: ids(String(t.operand)) }
        : t,
  );
  return { kind: 'narrow', narrow: { kind: 'search', terms: typed }, near };
}

export function narrowHash(narrow: Narrow, me: number): string {
  switch (narrow.kind) {
    case 'stream': {
      const topic = narrow.topic !== undefined ? `/topic/${encodeHashPart(narrow.topic)}` : '';
      return `#narrow/channel/${narrow.streamId}${topic}`;
    }
    case 'dm':
      return `#narrow/dm/${dmKey(narrow.userIds, me)}`;
    case 'feed':
      return '#feed';
    case 'search':
      return `#narrow/${narrow.terms
        .map(
          (t) =>
            `${t.negated ? '-' : ''}${t.operator}/${encodeHashPart(Array.isArray(t.operand) ? t.operand.join(',') : String(t.operand))}`,
        )
        .join('/')}`;
  }
}
