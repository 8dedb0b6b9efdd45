import type { StateProvider } from './types';

/** `drafts`: empty when the user turned draft synchronization off. */
export const draftsState: StateProvider = {
  eventTypes: ['drafts'],
  async fetch({ ctx, user }) {
    if (!user.enableDraftsSynchronization) return { drafts: [] };
    const rows = await ctx.db.draft.findMany({
      where: { userId: user.id },
      orderBy: { lastEditTime: 'asc' },
    });
    return {
      drafts: rows.map((d) => ({
        id: d.id,
        type: d.type,
        to: d.toJson as number[],
        topic: d.topic,
        content: d.content,
        timestamp: Math.floor(d.lastEditTime.getTime() / 1000),
      })),
    };
  },
};
