import type { AppContext } from '../../core/context';
import { rateLimited } from '../../core/errors';
import { redisLimiter } from '../../redis/limiter';

const authLimiter = (ctx: AppContext) =>
  redisLimiter(
    ctx,
    'auth',
    ctx.config.rateLimit.authAttempts,
    ctx.config.rateLimit.authWindowSeconds,
  );

/** Password attempts per username: refused while too many recent attempts failed. */
export async function checkAuthAttempts(ctx: AppContext, username: string): Promise<void> {
  const state = await authLimiter(ctx).get(username.toLowerCase());
  if (state && state.consumedPoints >= ctx.config.rateLimit.authAttempts) {
    throw rateLimited(state.msBeforeNext / 1000);
  }
}

export async function recordFailedAuthAttempt(ctx: AppContext, username: string): Promise<void> {
  await authLimiter(ctx)
    .penalty(username.toLowerCase(), 1)
    .catch(() => undefined);
}

/**
 * Forgets the failed attempts of a username (Zulip's reset_authentication_attempt_count), as a
 * password change does; true when there were some.
 */
export async function clearAuthAttempts(ctx: AppContext, username: string): Promise<boolean> {
  return authLimiter(ctx).delete(username.trim().toLowerCase());
}
