import type { AppContext } from '../../core/context';
import { eventKeys, partitionOf } from '../../events/keys';
import { invisibleActivity } from '../presence/invisible-activity';
import { isAway, PRESENCE_IDLE_SECONDS, type QueueActivity } from './notification-rules';
import { at } from '../../core/at';

/**
 * Which of these users are away (notification-rules.ts `isAway`). Presence comes with the
 * caller's query, and for users it shows idle, the activity they reported while invisible
 * (invisible-activity.ts: one HMGET); only users active by either need their event queues read
 * from Redis: one SMEMBERS pipeline per dispatch partition, then the queues' HMGETs in one
 * pipeline.
 */
export async function awayUsers(
  ctx: AppContext,
  users: { userId: number; lastActiveMs: number | null }[],
  nowMs = Date.now(),
): Promise<Set<number>> {
  const idle = (ms: number | null | undefined): boolean =>
    ms === null || ms === undefined || nowMs - ms > PRESENCE_IDLE_SECONDS * 1000;
  const unseen = users.filter((u) => idle(u.lastActiveMs)).map((u) => u.userId);
  const invisible = await invisibleActivity(ctx, unseen);
  const away = new Set<number>();
  const present: { userId: number; lastActiveMs: number }[] = [];
  for (const u of users) {
    const lastActiveMs = idle(u.lastActiveMs) ? invisible.get(u.userId) : u.lastActiveMs;
    if (lastActiveMs === null || lastActiveMs === undefined || idle(lastActiveMs)) {
      away.add(u.userId);
    } else present.push({ userId: u.userId, lastActiveMs });
  }
  if (present.length === 0) return away;

  const keys = eventKeys(ctx.config.redisPrefix);
  const partitions = ctx.config.dispatchPartitions;
  const byPartition = new Map<number, number[]>();
  for (const { userId } of present) {
    const p = partitionOf(userId, partitions);
    byPartition.set(p, [...(byPartition.get(p) ?? []), userId]);
  }
  const queueIds = new Map<number, string[]>();
  await Promise.all(
    [...byPartition].map(async ([partition, userIds]) => {
      const pipeline = ctx.redis.pipeline();
      for (const userId of userIds) pipeline.smembers(keys.userQueues(partition, userId));
      const results = (await pipeline.exec()) ?? [];
      userIds.forEach((userId, i) => {
        const [err, ids] = results[i] ?? [null, []];
        if (err) throw err;
        queueIds.set(userId, ids as string[]);
      });
    }),
  );
  // One round trip for every queue on one Redis; a cluster spreads queues over slots, so there
  // each read goes to its own node.
  const queues = present.flatMap(({ userId }) =>
    (queueIds.get(userId) ?? []).map((id) => ({ userId, id })),
  );
  const fields = ['event_types', 'last_access'];
  let hashes: (string | null)[][];
  if (ctx.redis.isCluster) {
    hashes = await Promise.all(queues.map((q) => ctx.redis.hmget(keys.queue(q.id), ...fields)));
  } else {
    const pipeline = ctx.redis.pipeline();
    for (const q of queues) pipeline.hmget(keys.queue(q.id), ...fields);
    hashes = ((await pipeline.exec()) ?? []).map(([err, value]) => {
      if (err) throw err;
      return value as (string | null)[];
    });
  }
  const activity = new Map<number, QueueActivity[]>();
  queues.forEach((q, i) => {
    // HMGET answers one value, or null, per field asked.
    const [eventTypes = null, lastAccess = null] = at(hashes, i);
    if (eventTypes === null || lastAccess === null) return;
    const list = activity.get(q.userId) ?? [];
    list.push({
      eventTypes: JSON.parse(eventTypes) as string[] | null,
      lastAccessMs: Number(lastAccess),
    });
    activity.set(q.userId, list);
  });
  const queueIdleSeconds = ctx.config.eventQueueIdleSeconds;
  for (const { userId, lastActiveMs } of present) {
    const userQueues = activity.get(userId) ?? [];
    if (isAway({ queues: userQueues, lastActiveMs, nowMs, queueIdleSeconds })) away.add(userId);
  }
  return away;
}
