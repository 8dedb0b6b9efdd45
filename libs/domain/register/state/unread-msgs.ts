import { RecipientType } from '../../recipients';
import type { StateProvider } from './types';

/** Zulip's cap on unread messages in the snapshot; `old_unreads_missing` says when more exist. */
const MAX_UNREAD = 50_000;
const READ = 1;
const MENTION_FLAGS = 8 | 16 | 32;

interface UnreadRow {
  message_id: number;
  flags: bigint;
  sender_id: number;
  subject: string;
  recipient_id: number;
  rtype: number;
  type_id: number;
}

/**
 * `unread_msgs`, from one query over the user's unread rows (newest first, capped). Only for a
 * client that follows both new messages and flag changes, which keep it current (as in Zulip).
 */
export const unreadMsgsState: StateProvider = {
  eventTypes: ['message', 'update_message_flags'],
  needsAll: true,
  async fetch({ ctx, user }) {
    const rows = await ctx.db.$queryRaw<UnreadRow[]>`
      SELECT um.message_id, um.flags, m.sender_id, m.subject, m.recipient_id,
             r.type AS rtype, r.type_id
      FROM user_messages um
      JOIN messages m ON m.id = um.message_id
      JOIN recipients r ON r.id = m.recipient_id
      WHERE um.user_id = ${user.id} AND (um.flags & ${READ}) = 0
      ORDER BY um.message_id DESC
      LIMIT ${MAX_UNREAD + 1}`;
    const missing = rows.length > MAX_UNREAD;
    const unread = rows.slice(0, MAX_UNREAD).reverse();
    const groupIds = [
      ...new Set(
        unread
          .filter((r) => r.rtype === RecipientType.DIRECT_MESSAGE_GROUP)
          .map((r) => r.recipient_id),
      ),
    ];
    const members = await groupMembers(ctx, groupIds);
    const streams = new Map<
      string,
      { stream_id: number; topic: string; unread_message_ids: number[] }
    >();
    const pms = new Map<number, number[]>();
    const huddles = new Map<string, number[]>();
    const mentions: number[] = [];
    for (const r of unread) {
      if ((Number(r.flags) & MENTION_FLAGS) !== 0) mentions.push(r.message_id);
      if (r.rtype === RecipientType.STREAM) {
        const key = `${r.type_id}\u0000${r.subject.toLowerCase()}`;
        const entry = streams.get(key) ?? {
          stream_id: r.type_id,
          topic: r.subject,
          unread_message_ids: [],
        };
        entry.unread_message_ids.push(r.message_id);
        streams.set(key, entry);
        continue;
      }
      // 1:1 conversations use a two-member direct-message group; they count as `pms`.
      const group = members.get(r.recipient_id) ?? [];
      if (r.rtype === RecipientType.PERSONAL || group.length <= 2) {
        const other =
          r.rtype === RecipientType.PERSONAL
            ? r.type_id === user.id
              ? r.sender_id
              : r.type_id
            : (group.find((id) => id !== user.id) ?? user.id);
        pms.set(other, [...(pms.get(other) ?? []), r.message_id]);
      } else {
        const key = group.join(',');
        huddles.set(key, [...(huddles.get(key) ?? []), r.message_id]);
      }
    }
    return {
      unread_msgs: {
        count: unread.length,
        pms: [...pms].map(([other, ids]) => ({
          other_user_id: other,
          sender_id: other,
          unread_message_ids: ids,
        })),
        streams: [...streams.values()],
        huddles: [...huddles].map(([key, ids]) => ({
          user_ids_string: key,
          unread_message_ids: ids,
        })),
        mentions,
        old_unreads_missing: missing,
      },
    };
  },
};

/** Sorted member ids of direct-message groups, keyed by recipient id. */
export async function groupMembers(
  ctx: { db: import('../../../db/client').Db | import('../../../db/client').Tx },
  recipientIds: number[],
): Promise<Map<number, number[]>> {
  if (recipientIds.length === 0) return new Map();
  const subs = await ctx.db.subscription.findMany({
    where: { recipientId: { in: recipientIds } },
    select: { recipientId: true, userId: true },
    orderBy: { userId: 'asc' },
  });
  const out = new Map<number, number[]>();
  for (const s of subs) out.set(s.recipientId, [...(out.get(s.recipientId) ?? []), s.userId]);
  return out;
}
