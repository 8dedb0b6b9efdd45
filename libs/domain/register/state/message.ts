import type { StateProvider } from './types';

/** `message`: the newest message id the user has, -1 when none. */
export const messageState: StateProvider = {
  eventTypes: ['message'],
  async fetch({ ctx, user }) {
    const max = await ctx.db.userMessage.aggregate({
      where: { userId: user.id },
      _max: { messageId: true },
    });
    return { max_message_id: max._max.messageId ?? -1 };
  },
};
