import { Prisma } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { findAlertWords, type RenderedMarkdown } from '../../markdown';
import { recursiveGroupMemberIds } from '../permissions/groups';
import { Flag } from './flags';
import { at } from '../../core/at';

export interface FlagInputs {
  senderId: number;
  recipientUserIds: number[];
  rendered: RenderedMarkdown;
  content: string;
  isPrivate: boolean;
  senderRead: boolean;
  /** For topic wildcard mentions: the channel recipient and topic. */
  topic?: { recipientId: number; name: string };
  /** Each recipient's alert words (the sender's are ignored), when the caller read them. */
  alertWords?: Map<number, string[]>;
}

/**
 * Flag bits of each recipient's copy of a new (or edited) message: mentions (group mentions
 * expanded through subgroups), wildcard mentions (topic wildcards reach the topic's
 * participants), alert words, and is_private. Returns one value per recipient user id.
 */
export async function recipientFlags(tx: Tx, input: FlagInputs): Promise<number[]> {
  const mentioned = new Set(input.rendered.mentionedUserIds);
  for (const groupId of input.rendered.mentionedGroupIds) {
    for (const id of await recursiveGroupMemberIds(tx, groupId)) mentioned.add(id);
  }
  let topicParticipants = new Set<number>();
  if (input.rendered.topicWildcardMentioned && input.topic) {
    const rows = await tx.$queryRaw<{ sender_id: number }[]>(Prisma.sql`
      SELECT DISTINCT sender_id FROM messages
      WHERE recipient_id = ${input.topic.recipientId} AND lower(subject) = lower(${input.topic.name})`);
    topicParticipants = new Set([input.senderId, ...rows.map((r) => r.sender_id)]);
  }
  const wordsByUser = input.alertWords ?? (await alertWordsOf(tx, input.recipientUserIds));
  const alerted = new Set(
    [...wordsByUser]
      .filter(([id, list]) => id !== input.senderId && findAlertWords(input.content, list))
      .map(([id]) => id),
  );

  return input.recipientUserIds.map((userId) => {
    let bits = 0;
    if (input.isPrivate) bits |= Flag.is_private;
    if (userId === input.senderId && input.senderRead) bits |= Flag.read;
    if (mentioned.has(userId)) bits |= Flag.mentioned;
    if (input.rendered.streamWildcardMentioned) bits |= Flag.stream_wildcard_mentioned;
    if (topicParticipants.has(userId)) bits |= Flag.topic_wildcard_mentioned;
    if (alerted.has(userId)) bits |= Flag.has_alert_word;
    return bits;
  });
}

/** The alert words of each of `userIds` that has any. */
async function alertWordsOf(tx: Tx, userIds: number[]): Promise<Map<number, string[]>> {
  const rows = await tx.$queryRaw<{ user_id: number; words: string[] }[]>(Prisma.sql`
    SELECT user_id, array_agg(word) AS words FROM alert_words
    WHERE user_id = ANY(${userIds}::int[]) GROUP BY user_id`);
  return new Map(rows.map((r) => [r.user_id, r.words]));
}

/** Groups user ids by identical flag bits, so one event can serve each group. */
export function groupByFlags(userIds: number[], flags: number[]): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  userIds.forEach((id, i) => {
    const bits = at(flags, i);
    const list = groups.get(bits);
    if (list) list.push(id);
    else groups.set(bits, [id]);
  });
  return groups;
}
