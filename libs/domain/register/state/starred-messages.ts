import { Prisma } from '../../../../generated/prisma/client';
import { Flag } from '../../messages/flags';
import type { StateProvider } from './types';

/** `starred_messages`: the IDs of the user's starred messages, oldest first. */
export const starredMessagesState: StateProvider = {
  eventTypes: ['starred_messages'],
  async fetch({ ctx, user }) {
    // The flag as a literal, so the partial index of starred rows applies.
    const rows = await ctx.db.$queryRaw<{ message_id: number }[]>`
      SELECT message_id FROM user_messages
      WHERE user_id = ${user.id} AND (flags & ${Prisma.raw(String(Flag.starred))}) <> 0
      ORDER BY message_id`;
    return { starred_messages: rows.map((r) => r.message_id) };
  },
};
