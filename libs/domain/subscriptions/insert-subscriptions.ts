import type { Tx } from '../../db/client';
import { colorForIndex } from './colors';

/**
 * Subscribes users to channel recipients in bulk, reactivating old subscriptions; returns the
 * (userId, recipientId) pairs that were not active before. A pair's `color` is used only for a
 * new row (a reactivated subscription keeps its color); without one the palette's next is taken.
 */
export async function insertSubscriptions(
  tx: Tx,
  pairs: { userId: number; recipientId: number; color?: string }[],
): Promise<{ userId: number; recipientId: number }[]> {
  if (pairs.length === 0) return [];
  const userIds = [...new Set(pairs.map((p) => p.userId))];
  const existing = await tx.subscription.findMany({
    where: { userId: { in: userIds } },
    select: { userId: true, recipientId: true, active: true },
  });
  const key = (p: { userId: number; recipientId: number }) => `${p.userId}:${p.recipientId}`;
  const byKey = new Map(existing.map((s) => [key(s), s]));
  const countByUser = new Map<number, number>();
  for (const s of existing) countByUser.set(s.userId, (countByUser.get(s.userId) ?? 0) + 1);

  const fresh: { userId: number; recipientId: number; color: string }[] = [];
  const reactivate: { userId: number; recipientId: number }[] = [];
  for (const pair of pairs) {
    const found = byKey.get(key(pair));
    if (found?.active) continue;
    const { userId, recipientId } = pair;
    if (found) {
      reactivate.push({ userId, recipientId });
    } else {
      const index = countByUser.get(userId) ?? 0;
      countByUser.set(userId, index + 1);
      fresh.push({ userId, recipientId, color: pair.color ?? colorForIndex(index) });
    }
    byKey.set(key(pair), { userId, recipientId, active: true });
  }
  if (fresh.length) await tx.subscription.createMany({ data: fresh });
  for (const pair of reactivate) {
    await tx.subscription.update({
      where: { userId_recipientId: pair },
      data: { active: true },
    });
  }
  return [...fresh.map(({ userId, recipientId }) => ({ userId, recipientId })), ...reactivate];
}
