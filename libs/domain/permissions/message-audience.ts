import { Prisma, type Stream } from '../../../generated/prisma/client';
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
