import type { AppContext } from '../core/context';
import { rateLimited } from '../core/errors';
import { windowCounter } from '../redis/window-counter';

/** Where the rate-limit headers go: the response, or a list the caller writes with its head. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * Counts one API request of a user; over the limit it answers 429 RATE_LIMIT_HIT with retry-after.
 * Counted in this process and synced to Redis in batches (`WindowCounter`), so a request waits
 * for Redis only when it opens its user's window here.
 */
export async function consumeApiRequest(
  ctx: AppContext,
  userId: number,
  res: HeaderSink,
): Promise<void> {
  const { apiRequests: limit, apiWindowSeconds } = ctx.config.rateLimit;
  const { count, msLeft } = await windowCounter(ctx, 'api', apiWindowSeconds).add(String(userId));
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + msLeft) / 1000)));
  if (count > limit) throw rateLimited(msLeft / 1000);
}
