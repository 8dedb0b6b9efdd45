import { Prisma } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';

/**
 * Deletes archive transactions older than the delay for good (Zulip's clean_archived_data); the
 * uploads only they linked then become unclaimed, and the daily clean-up removes them.
 */
export async function purgeArchivedMessages(
  ctx: AppContext,
  input: { olderThanDays: number; now?: Date; batchSize?: number },
): Promise<number> {
  const now = input.now ?? new Date();
  const cutoff = new Date(now.getTime() - input.olderThanDays * 24 * 60 * 60 * 1000);
  const batchSize = input.batchSize ?? 100;
  let total = 0;
  for (;;) {
    const purged = await ctx.db.$executeRaw(Prisma.sql`
      DELETE FROM archive_transactions WHERE id IN (
        SELECT id FROM archive_transactions WHERE archived_at < ${cutoff}
        ORDER BY id LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)`);
    total += purged;
    if (purged < batchSize) break;
  }
  return total;
}
