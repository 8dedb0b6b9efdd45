import type { Recipient, ScheduledMessage } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { RecipientType } from '../recipients';
import type { ApiScheduledMessage } from '../../protocol/records';

export type { ApiScheduledMessage };

export type ScheduledMessageWithRecipient = ScheduledMessage & { recipient: Recipient };

/**
 * Zulip addresses a 1:1 conversation by the other person alone (1:1 conversations are stored
 * here as two-member groups) and a group conversation by all its members.
 */
function directTo(m: ScheduledMessageWithRecipient, groupMembers: number[]): number[] {
  if (m.recipient.type === RecipientType.PERSONAL) return [m.recipient.typeId];
  if (groupMembers.length === 2 && groupMembers.includes(m.senderId)) {
    return groupMembers.filter((id) => id !== m.senderId);
  }
  return groupMembers;
}

/**
 * Formats scheduled messages; direct messages list their conversation's user IDs (one query for
 * every direct-message group among them).
 */
export async function formatScheduledMessages(
  db: Db | Tx,
  rows: ScheduledMessageWithRecipient[],
): Promise<ApiScheduledMessage[]> {
  const groupIds = rows
    .filter((r) => r.recipient.type === RecipientType.DIRECT_MESSAGE_GROUP)
    .map((r) => r.recipientId);
  const members = new Map<number, number[]>();
  if (groupIds.length) {
    const subs = await db.subscription.findMany({
      where: { recipientId: { in: groupIds } },
      select: { recipientId: true, userId: true },
      orderBy: { userId: 'asc' },
    });
    for (const s of subs)
      members.set(s.recipientId, [...(members.get(s.recipientId) ?? []), s.userId]);
  }
  return rows.map((m) => {
    const base = {
      scheduled_message_id: m.id,
      content: m.content,
      rendered_content: m.renderedContent,
      scheduled_delivery_timestamp: Math.floor(m.scheduledTimestamp.getTime() / 1000),
      failed: m.failed,
    };
    if (m.recipient.type === RecipientType.STREAM) {
      return { ...base, type: 'stream' as const, to: m.recipient.typeId, topic: m.subject };
    }
    return { ...base, type: 'private' as const, to: directTo(m, members.get(m.recipientId) ?? []) };
  });
}
