import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { AppContext } from '../core/context';

const limiters = new WeakMap<AppContext, Map<string, RateLimiterRedis>>();

/**
 * The counter `name` (points per window of seconds), kept in Redis so every replica counts the
 * same requests; made once per context.
 */
export function redisLimiter(
  ctx: AppContext,
  name: string,
  points: number,
  windowSeconds: number,
): RateLimiterRedis {
  let byName = limiters.get(ctx);
  if (!byName) limiters.set(ctx, (byName = new Map()));
  let found = byName.get(name);
  if (!found) {
    found = new RateLimiterRedis({
      storeClient: ctx.redis,
      keyPrefix: `${ctx.config.redisPrefix}ratelimit:${name}`,
      points,
      duration: windowSeconds,
    });
    byName.set(name, found);
  }
  return found;
}
