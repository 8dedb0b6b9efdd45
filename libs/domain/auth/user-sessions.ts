import { createHash } from 'node:crypto';
import type { AppContext } from '../../core/context';

/**
 * Browser sessions are Redis records named by a hash of their cookie's token; each user also has a
 * set of the records made for them, so that a password change or reset can end every other one,
 * as Django's session hash does in Zulip. A record that expired on its own leaves a stale member,
 * which ending the sessions deletes harmlessly.
 */
export const sessionRecordKey = (ctx: AppContext, token: string) =>
  `${ctx.config.redisPrefix}session:${createHash('sha256').update(token).digest('base64url')}`;

const userSessionsKey = (ctx: AppContext, userId: number) =>
  `${ctx.config.redisPrefix}user-sessions:${userId}`;

/** Records a new session's key under its user; the set lives as long as the newest session. */
export async function indexSession(
  ctx: AppContext,
  userId: number,
  recordKey: string,
  ttlSeconds: number,
): Promise<void> {
  const key = userSessionsKey(ctx, userId);
  await ctx.redis.sadd(key, recordKey);
  await ctx.redis.expire(key, ttlSeconds);
}

/**
 * Ends every session of the user but `keepToken`'s (the request that changed the password keeps
 * its own). Keys are deleted one by one: on a Redis Cluster they live in different slots.
 */
export async function endUserSessions(
  ctx: AppContext,
  userId: number,
  keepToken: string | null = null,
): Promise<number> {
  const key = userSessionsKey(ctx, userId);
  const keep = keepToken === null ? null : sessionRecordKey(ctx, keepToken);
  const members = await ctx.redis.smembers(key);
  const ended = members.filter((member) => member !== keep);
  const deleted = await Promise.all(ended.map((member) => ctx.redis.del(member)));
  if (ended.length) await ctx.redis.srem(key, ...ended);
  return deleted.reduce((sum, n) => sum + n, 0);
}
