import { RecipientType } from '../../recipients';
import { groupMembers } from './unread-msgs';
import type { StateProvider } from './types';

/** Zulip looks at the user's 1000 most recent direct messages. */
const RECENT_LIMIT = 1000;

interface Row {
  message_id: number;
  sender_id: number;
  recipient_id: number;
  rtype: number;
  type_id: number;
}

export const recentPrivateConversationsState: StateProvider = {
  eventTypes: ['recent_private_conversations'],
  async fetch({ ctx, user }) {
    const rows = await ctx.db.$queryRaw<Row[]>`
      SELECT um.message_id, m.sender_id, m.recipient_id, r.type AS rtype, r.type_id
      FROM user_messages um
      JOIN messages m ON m.id = um.message_id
      JOIN recipients r ON r.id = m.recipient_id
      WHERE um.user_id = ${user.id} AND r.type IN (${RecipientType.PERSONAL}, ${RecipientType.DIRECT_MESSAGE_GROUP})
      ORDER BY um.message_id DESC
      LIMIT ${RECENT_LIMIT}`;
    const groupIds = [
      ...new Set(rows.filter((r) => r.rtype !== RecipientType.PERSONAL).map((r) => r.recipient_id)),
    ];
    const members = await groupMembers(ctx, groupIds);
    const conversations = new Map<string, { max_message_id: number; user_ids: number[] }>();
    for (const r of rows) {
      let others: number[];
      if (r.rtype === RecipientType.PERSONAL) {
        const other = r.type_id === user.id ? r.sender_id : r.type_id;
        others = other === user.id ? [] : [other];
      } else {
        others = (members.get(r.recipient_id) ?? []).filter((id) => id !== user.id);
      }
      const key = others.join(',');
      const entry = conversations.get(key);
      if (!entry) conversations.set(key, { max_message_id: r.message_id, user_ids: others });
      else entry.max_message_id = Math.max(entry.max_message_id, r.message_id);
    }
    return {
      recent_private_conversations: [...conversations.values()].sort(
        (a, b) => b.max_message_id - a.max_message_id,
      ),
    };
  },
};
