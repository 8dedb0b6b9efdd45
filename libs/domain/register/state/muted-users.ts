import type { StateProvider } from './types';

export const mutedUsersState: StateProvider = {
  eventTypes: ['muted_users'],
  async fetch({ ctx, user }) {
    const rows = await ctx.db.mutedUser.findMany({
      where: { userProfileId: user.id },
      orderBy: { id: 'asc' },
    });
    return {
      muted_users: rows.map((r) => ({
        id: r.mutedUserId,
        timestamp: Math.floor(r.dateMuted.getTime() / 1000),
      })),
    };
  },
};
