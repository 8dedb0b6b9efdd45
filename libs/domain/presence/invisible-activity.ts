import type { AppContext } from '../../core/context';

/**
 * When invisible users (presence_enabled false) were last active, kept apart from the presence
 * others see: one Redis hash, user id -> milliseconds. Their user_presences row stays as it was
 * made when they went invisible (offline to everyone), but the notification rules still need to
 * know whether they are at their screen, as for anyone else; Zulip records the activity its
 * clients report whether or not the user is invisible.
 */
const activityKey = (ctx: AppContext) => `${ctx.config.redisPrefix}presence:invisible-activity`;

export async function recordInvisibleActivity(
  ctx: AppContext,
  userId: number,
  now: Date,
): Promise<void> {
  await ctx.redis.hset(activityKey(ctx), String(userId), String(now.getTime()));
}

/** The last activity of these users while invisible (ms), for those that have any. */
export async function invisibleActivity(
  ctx: AppContext,
  userIds: number[],
): Promise<Map<number, number>> {
  const found = new Map<number, number>();
  if (userIds.length === 0) return found;
  const values = await ctx.redis.hmget(activityKey(ctx), ...userIds.map(String));
  userIds.forEach((userId, i) => {
    const value = values[i];
    if (value !== null && value !== undefined) found.set(userId, Number(value));
  });
  return found;
}
