import type { ServerResponse } from 'node:http';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { AppContext } from '../core/context';
import { rateLimited } from '../core/errors';
import { redisLimiter } from '../redis/limiter';

const apiLimiter = (ctx: AppContext) =>
  redisLimiter(ctx, 'api', ctx.config.rateLimit.apiRequests, ctx.config.rateLimit.apiWindowSeconds);

function setHeaders(
  res: Pick<ServerResponse, 'setHeader'>,
  limit: number,
  state: RateLimiterRes,
): void {
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)));
}

/** Counts one API request of a user; over the limit it answers 429 RATE_LIMIT_HIT with retry-after. */
export async function consumeApiRequest(
  ctx: AppContext,
  userId: number,
  res: Pick<ServerResponse, 'setHeader'>,
): Promise<void> {
  const limit = ctx.config.rateLimit.apiRequests;
  try {
    setHeaders(res, limit, await apiLimiter(ctx).consume(String(userId)));
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    setHeaders(res, limit, err);
    throw rateLimited(err.msBeforeNext / 1000);
  }
}
