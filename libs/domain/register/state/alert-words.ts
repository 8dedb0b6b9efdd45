import type { StateProvider } from './types';

export const alertWordsState: StateProvider = {
  eventTypes: ['alert_words'],
  async fetch({ ctx, user }) {
    const words = await ctx.db.alertWord.findMany({
      where: { userId: user.id },
      orderBy: { word: 'asc' },
      select: { word: true },
    });
    return { alert_words: words.map((w) => w.word) };
  },
};
