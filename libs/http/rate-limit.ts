import type { Response } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AppContext } from '../core/context';
import { rateLimited } from '../core/errors';

interface Limiters {
  api: RateLimiterRedis;
  auth: RateLimiterRedis;
}

// Limits live in Redis so every API replica counts the same requests.
const limiters = new WeakMap<AppContext, Limiters>();

function limitersFor(ctx: AppContext): Limiters {
  let found = limiters.get(ctx);
  if (!found) {
    const { rateLimit, redisPrefix } = ctx.config;
    found = {
      api: new RateLimiterRedis({
        storeClient: ctx.redis,
        keyPrefix: `${redisPrefix}ratelimit:api`,
        points: rateLimit.apiRequests,
        duration: rateLimit.apiWindowSeconds,
      }),
      auth: new RateLimiterRedis({
        storeClient: ctx.redis,
        keyPrefix: `${redisPrefix}ratelimit:auth`,
        points: rateLimit.authAttempts,
        duration: rateLimit.authWindowSeconds,
      }),
    };
    limiters.set(ctx, found);
  }
  return found;
}

function setHeaders(res: Response, limit: number, state: RateLimiterRes): void {
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + state.msBeforeNext) / 1000)));
}

/** Counts one API request of a user; over the limit it answers 429 RATE_LIMIT_HIT with retry-after. */
export async function consumeApiRequest(
  ctx: AppContext,
  userId: number,
  res: Response,
): Promise<void> {
  const limit = ctx.config.rateLimit.apiRequests;
  try {
    setHeaders(res, limit, await limitersFor(ctx).api.consume(String(userId)));
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    setHeaders(res, limit, err);
    throw rateLimited(err.msBeforeNext / 1000);
  }
}

/** Password attempts per username: refused while too many recent attempts failed. */
export async function checkAuthAttempts(ctx: AppContext, username: string): Promise<void> {
  const state = await limitersFor(ctx).auth.get(username.toLowerCase());
  if (state && state.consumedPoints >= ctx.config.rateLimit.authAttempts) {
    throw rateLimited(state.msBeforeNext / 1000);
  }
}

export async function recordFailedAuthAttempt(ctx: AppContext, username: string): Promise<void> {
  await limitersFor(ctx)
    .auth.penalty(username.toLowerCase(), 1)
    .catch(() => undefined);
}
