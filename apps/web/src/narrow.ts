import type { Message, Narrow } from './types';

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

export function inNarrow(message: Message, narrow: Narrow, me: number): boolean {
  if (narrow.kind === 'stream') {
    return (
      message.type === 'stream' &&
      message.stream_id === narrow.streamId &&
      (narrow.topic === undefined || message.subject.toLowerCase() === narrow.topic.toLowerCase())
    );
  }
  return message.type === 'private' && messageDmKey(message, me) === dmKey(narrow.userIds, me);
}

/** The narrow in Zulip's `GET /messages` form. */
export function apiNarrow(narrow: Narrow, me: number): { operator: string; operand: unknown }[] {
  if (narrow.kind === 'stream') {
    const terms: { operator: string; operand: unknown }[] = [
      { operator: 'channel', operand: narrow.streamId },
    ];
    if (narrow.topic !== undefined) terms.push({ operator: 'topic', operand: narrow.topic });
    return terms;
  }
  const others = narrow.userIds.filter((id) => id !== me);
  return [{ operator: 'dm', operand: others.length ? others : [me] }];
}

export function sameNarrow(a: Narrow, b: Narrow, me: number): boolean {
  if (a.kind === 'stream' && b.kind === 'stream')
    return a.streamId === b.streamId && a.topic === b.topic;
  if (a.kind === 'dm' && b.kind === 'dm') return dmKey(a.userIds, me) === dmKey(b.userIds, me);
  return false;
}
