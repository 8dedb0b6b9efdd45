import type { StateProvider } from './types';

export const realmEmojiState: StateProvider = {
  eventTypes: ['realm_emoji'],
  async fetch({ ctx, realm }) {
    const rows = await ctx.db.realmEmoji.findMany({
      where: { realmId: realm.id },
      orderBy: { id: 'asc' },
    });
    const out: Record<string, unknown> = {};
    for (const e of rows) {
      const url = `/user_avatars/${realm.id}/emoji/images/${e.fileName ?? ''}`;
      out[String(e.id)] = {
        id: String(e.id),
        name: e.name,
        source_url: url,
        ...(e.isAnimated ? { still_url: url.replace(/\.[^.]+$/, '.png') } : { still_url: null }),
        deactivated: e.deactivated,
        author_id: e.authorId,
      };
    }
    return { realm_emoji: out };
  },
};
