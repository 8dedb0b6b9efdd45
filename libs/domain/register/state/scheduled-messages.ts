import { RecipientType } from '../../recipients';
import { groupMembers } from './unread-msgs';
import type { StateProvider } from './types';

/** `scheduled_messages`: the user's undelivered scheduled messages, soonest first. */
export const scheduledMessagesState: StateProvider = {
  eventTypes: ['scheduled_messages'],
  async fetch({ ctx, user }) {
    const rows = await ctx.db.scheduledMessage.findMany({
      where: { senderId: user.id, delivered: false },
      orderBy: [{ scheduledTimestamp: 'asc' }, { id: 'asc' }],
      include: { recipient: true },
    });
    const groups = await groupMembers(
      ctx,
      rows
        .filter((r) => r.recipient.type === RecipientType.DIRECT_MESSAGE_GROUP)
        .map((r) => r.recipientId),
    );
    return {
      scheduled_messages: rows.map((m) => {
        const base = {
          scheduled_message_id: m.id,
          content: m.content,
          rendered_content: m.renderedContent,
          scheduled_delivery_timestamp: Math.floor(m.scheduledTimestamp.getTime() / 1000),
          failed: m.failed,
        };
        if (m.recipient.type === RecipientType.STREAM) {
          return { ...base, type: 'stream', to: m.recipient.typeId, topic: m.subject };
        }
        const to =
          m.recipient.type === RecipientType.PERSONAL
            ? [m.recipient.typeId]
            : (groups.get(m.recipientId) ?? []);
        return { ...base, type: 'private', to };
      }),
    };
  },
};
