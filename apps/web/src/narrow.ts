import type { Message, Narrow, NarrowTerm } from './types';

/** The people of a direct conversation other than me, sorted: its identity. */
export function dmKey(userIds: number[], me: number): string {
  const others = [...new Set(userIds)].filter((id) => id !== me).sort((a, b) => a - b);
  return others.length ? others.join(',') : String(me);
}

export function messageDmKey(message: Message, me: number): string {
  const recipients = Array.isArray(message.display_recipient) ? message.display_recipient : [];
  return dmKey(
    recipients.map((r) => r.id),
    me,
  );
}

const lower = (s: unknown) => String(s).toLowerCase();

/**
 * Whether a term holds for a message, as far as the client can tell without the server: `null`
 * when it cannot (full-text search, `has:`), so live messages are not guessed into the narrow.
 */
function termHolds(term: NarrowTerm, m: Message, me: number): boolean | null {
  const { operator, operand } = term;
  switch (operator) {
    case 'channel':
    case 'stream':
      return (
        m.type === 'stream' &&
        (typeof operand === 'number' || /^\d+$/.test(String(operand))
          ? m.stream_id === Number(operand)
          : lower(m.display_recipient) === lower(operand))
      );
    case 'topic':
      return m.type === 'stream' && lower(m.subject) === lower(operand);
    case 'sender':
      return typeof operand === 'number' || /^\d+$/.test(String(operand))
        ? m.sender_id === Number(operand)
        : lower(m.sender_email) === lower(operand);
    case 'dm': {
      if (m.type !== 'private') return false;
      const ids = Array.isArray(operand) ? operand : null;
      return ids ? messageDmKey(m, me) === dmKey(ids, me) : null;
    }
    case 'is':
      if (operand === 'dm' || operand === 'private') return m.type === 'private';
      if (operand === 'starred') return !!m.flags?.includes('starred');
      if (operand === 'mentioned')
        return !!m.flags?.some((f) => f === 'mentioned' || f.endsWith('wildcard_mentioned'));
      return null;
    default:
      return null;
  }
}

/** Whether a message belongs in a narrow; `false` where the client cannot tell. */
export function inNarrow(message: Message, narrow: Narrow, me: number): boolean {
  switch (narrow.kind) {
    case 'stream':
      return (
        message.type === 'stream' &&
        message.stream_id === narrow.streamId &&
        (narrow.topic === undefined || lower(message.subject) === lower(narrow.topic))
      );
    case 'dm':
      return message.type === 'private' && messageDmKey(message, me) === dmKey(narrow.userIds, me);
    case 'feed':
      return true;
    case 'search':
      return narrow.terms.every((t) => {
        const holds = termHolds(t, message, me);
        return holds !== null && holds !== !!t.negated;
      });
  }
}

/** The narrow in Zulip's `GET /messages` form. */
export function apiNarrow(narrow: Narrow, me: number): NarrowTerm[] {
  switch (narrow.kind) {
    case 'stream': {
      const terms: NarrowTerm[] = [{ operator: 'channel', operand: narrow.streamId }];
      if (narrow.topic !== undefined) terms.push({ operator: 'topic', operand: narrow.topic });
      return terms;
    }
    case 'dm': {
      const others = narrow.userIds.filter((id) => id !== me);
      return [{ operator: 'dm', operand: others.length ? others : [me] }];
    }
    case 'feed':
      return [];
    case 'search':
      return narrow.terms;
  }
}

/** A narrow's identity, for caching its messages and comparing narrows. */
export function narrowKey(narrow: Narrow, me: number): string {
  switch (narrow.kind) {
    case 'stream':
      return `s${narrow.streamId}${narrow.topic !== undefined ? `:${lower(narrow.topic)}` : ''}`;
    case 'dm':
      return `d${dmKey(narrow.userIds, me)}`;
    case 'feed':
      return 'feed';
    case 'search':
      return `q${JSON.stringify(narrow.terms)}`;
  }
}

export function sameNarrow(a: Narrow, b: Narrow, me: number): boolean {
  return narrowKey(a, me) === narrowKey(b, me);
}

/** An operator under its current name (`stream:` is `channel:`, `pm-with:` is `dm:`, ...). */
const OPERATOR_NAMES: Record<string, string> = {
  stream: 'channel',
  streams: 'channels',
  'pm-with': 'dm',
  'group-pm-with': 'dm-including',
  from: 'sender',
  subject: 'topic',
};

/** Narrows, by their sorted term types, whose messages are read as one reads a conversation. */
const READ_IN_ORDER = new Set(
  [
    ['channel', 'topic'],
    ['dm'],
    ['channel'],
    ['is-dm'],
    ['not-is-dm'],
    ['is-resolved'],
    ['in-home'],
    ['not-is-muted'],
    ['in-all'],
    [],
  ].map((types) => types.join(' ')),
);

/**
 * Whether seeing a message in this narrow marks it read. As in Zulip's web app, only views that
 * hold whole conversations do: a channel, a topic, a direct conversation, the feeds. Search
 * results, starred messages, a sender's messages and the like leave messages unread.
 */
export function marksRead(narrow: Narrow): boolean {
  if (narrow.kind !== 'search') return true;
  const types = narrow.terms
    .map((t) => {
      const operator = OPERATOR_NAMES[t.operator] ?? t.operator;
      let operand = String(t.operand);
      if (operator === 'is' && operand === 'private') operand = 'dm';
      const type = ['is', 'in', 'channels'].includes(operator)
        ? `${operator}-${operand}`
        : operator;
      return t.negated ? `not-${type}` : type;
    })
    // A permalink's anchor does not change what the narrow holds.
    .filter((type) => type !== 'near' && type !== 'with')
    .sort();
  return READ_IN_ORDER.has(types.join(' '));
}
