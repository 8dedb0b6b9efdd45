import { Prisma, type Message, type Stream } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { isPrivateChannel } from './channel-kinds';

/**
 * Who hears about a change to a message (reactions, edits, deletions): everyone with a copy,
 * plus, for channel messages, the channel's current subscribers who can read its history.
 */
export async function messageAudience(tx: Tx, messageIds: number[]): Promise<number[]> {
  if (messageIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ user_id: number }[]>(Prisma.sql`
    SELECT um.user_id FROM user_messages um WHERE um.message_id = ANY(${messageIds}::int[])
    UNION
    SELECT s.user_id FROM subscriptions s
    JOIN streams st ON st.recipient_id = s.recipient_id AND st.history_public_to_subscribers
    WHERE s.active AND s.is_user_active AND s.recipient_id IN (
      SELECT m.recipient_id FROM messages m
      WHERE m.id = ANY(${messageIds}::int[]) AND m.is_channel_message)`);
  return rows.map((r) => r.user_id).sort((a, b) => a - b);
}

/** A conversation's key: its recipient and topic (a direct conversation's topic is ''). */
export const conversationKey = (m: { recipientId: number; subject: string }): string =>
  `${m.recipientId}\n${m.subject}`;

/**
 * `messageAudience` for the messages of many conversations at once, by conversation
 * (`conversationKey`): the holders of a copy of the conversation's messages, plus, for a
 * channel, its current subscribers who can read its history. Two statements whatever the number
 * of conversations, as retention deletes a thousand messages of hundreds of topics together.
 */
export async function audienceByConversation(
  tx: Tx,
  messages: Pick<Message, 'id' | 'recipientId' | 'subject' | 'isChannelMessage'>[],
): Promise<Map<string, number[]>> {
  const ids = messages.map((m) => m.id);
  const channels = [
    ...new Set(messages.filter((m) => m.isChannelMessage).map((m) => m.recipientId)),
  ];
  const holders = await tx.$queryRaw<{ recipient_id: number; subject: string; users: number[] }[]>(
    Prisma.sql`
      SELECT m.recipient_id, m.subject, array_agg(DISTINCT um.user_id) AS users
      FROM messages m JOIN user_messages um ON um.message_id = m.id
      WHERE m.id = ANY(${ids}::int[])
      GROUP BY m.recipient_id, m.subject`,
  );
  const subscribers =
    channels.length === 0
      ? []
      : await tx.$queryRaw<{ recipient_id: number; users: number[] }[]>(Prisma.sql`
          SELECT s.recipient_id, array_agg(s.user_id) AS users
          FROM subscriptions s
          JOIN streams st ON st.recipient_id = s.recipient_id AND st.history_public_to_subscribers
          WHERE s.active AND s.is_user_active AND s.recipient_id = ANY(${channels}::int[])
          GROUP BY s.recipient_id`);
  const holdersOf = new Map(
    holders.map((r) => [conversationKey({ recipientId: r.recipient_id, subject: r.subject }), r]),
  );
  const subscribersOf = new Map(subscribers.map((r) => [r.recipient_id, r.users]));
  const audiences = new Map<string, number[]>();
  for (const m of messages) {
    const key = conversationKey(m);
    if (audiences.has(key)) continue;
    const users = new Set(holdersOf.get(key)?.users);
    if (m.isChannelMessage) for (const id of subscribersOf.get(m.recipientId) ?? []) users.add(id);
    audiences.set(
      key,
      [...users].sort((a, b) => a - b),
    );
  }
  return audiences;
}

/**
 * Messages moved into a private channel stay only with its subscribers: the other holders of a
 * copy lose it (a public channel's history is readable by everyone, so there the copies stay).
 * Those holders, by user ID, for the move to delete their copies.
 */
export async function copiesLostByMove(
  tx: Tx,
  {
    messageIds,
    channel,
  }: { messageIds: number[]; channel: Pick<Stream, 'inviteOnly' | 'recipientId'> },
): Promise<number[]> {
  if (!isPrivateChannel(channel) || messageIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ user_id: number }[]>(Prisma.sql`
    SELECT DISTINCT um.user_id FROM user_messages um
    WHERE um.message_id = ANY(${messageIds}::int[]) AND NOT EXISTS (
      SELECT 1 FROM subscriptions s WHERE s.recipient_id = ${channel.recipientId}
      AND s.user_id = um.user_id AND s.active)
    ORDER BY um.user_id`);
  return rows.map((r) => r.user_id);
}
