import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { execByNode, type BatchCommand } from '../redis/by-node';
import { addPerKey, perKeyReplies } from '../redis/per-key';
import type { QueueSettings } from '../protocol/queue';
import {
  batchAudience,
  freshItems,
  parseEntries,
  planAppends,
  planFinish,
  queueIdsOf,
  type DispatchItem,
  type QueueSets,
  type StreamEntry,
} from './dispatch-plan';
import { DISPATCH_GROUP } from './domain-stream';
import type { EventKeys } from './keys';
import type { QueueDirectory } from './queue-directory';
import type { LocalDelivery } from './local-wakeups';
import { wakeCommand } from './waker';

/**
 * How long a delivered outbox row is remembered. A row is published twice only when the sweeper
 * finds it unmarked (3 s after commit) while its first publish is still on the way, so minutes
 * suffice, and a day of keys (one per row and partition) would cost Redis gigabytes.
 */
const DEDUPE_SECONDS = 15 * 60;

/** The partition a batch comes from, and what this process keeps for it. */
export interface DeliveryTarget {
  keys: EventKeys;
  directory: QueueDirectory;
  partition: number;
  /** This delivery's part in waking this process's own polls; ended here once it has appended. */
  local?: LocalDelivery;
}

/**
 * Carries out one batch of a partition's domain stream (planned by `dispatch-plan`) in four round
 * trips, whatever its size:
 * 1. dedupe keys of the outbox rows and the queue ids of every user (and realm, for public
 *    channel messages) the batch names, the sets read by script (`addPerKey`);
 * 2. the settings of queues this process has not seen yet;
 * 3. every append, in stream order;
 * 4. acknowledgement and trimming of the entries, clean-up of queues found gone, and one wake-up
 *    message per other events process with waiting polls, carrying the events it woke them for.
 * On a cluster, rounds 2 to 4 take one round trip per node, sent together. This process's own
 * polls are woken after round 3, once no other delivery under way has yet to append
 * (`LocalWakeups`).
 */
export async function deliverBatch(
  ctx: AppContext,
  { keys, directory, partition, local }: DeliveryTarget,
  entries: StreamEntry[],
): Promise<number> {
  const items = parseEntries(entries);
  const { users, publicRealms } = batchAudience(items);
  const lookups = ctx.redis.pipeline();
  for (const { entryId, envelope } of items) {
    lookups.set(
      keys.dispatched(partition, envelope.outboxId),
      entryId,
      'EX',
      DEDUPE_SECONDS,
      'NX',
      'GET',
    );
  }
  // A partition's keys share one slot, so one script call reads a thousand sets.
  addPerKey(lookups, 'SMEMBERS', [
    ...users.map((userId) => keys.userQueues(partition, userId)),
    ...publicRealms.map((realmId) => keys.realmPublicQueues(partition, realmId)),
  ]);
  const looked = ((await lookups.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
  const fresh = freshItems(items, looked.slice(0, items.length) as (string | null)[]);
  const members = perKeyReplies<string[]>(looked.slice(items.length));
  const sets: QueueSets = {
    ofUser: new Map(users.map((userId, i) => [userId, members[i]])),
    publicOfRealm: new Map(publicRealms.map((realmId, i) => [realmId, members[users.length + i]])),
  };

  const { live, gone } = await directory.resolve(partition, queueIdsOf(sets));
  const emails = await emailsFor(ctx, fresh, live);
  const appends = planAppends(fresh, sets, new Map(live.map((q) => [q.id, q])), (id) =>
    emails.get(id),
  );
  const results = await directory.store.append(appends);

  const plan = planFinish(appends, results, sets, gone, local?.channel);
  local?.end(plan.localWakeups);
  const streamKey = keys.domainStream(partition);
  // Every key of the partition shares the stream's slot.
  const finish: BatchCommand[] = [];
  const onPartition = (add: BatchCommand['add']) => finish.push({ key: streamKey, add });
  for (const { queueId, userIds, realmIds } of plan.cleanups) {
    directory.forget(queueId);
    for (const add of directory.store.forgetCommands(partition, queueId, userIds, realmIds)) {
      onPartition(add);
    }
  }
  onPartition((p) => p.xack(streamKey, DISPATCH_GROUP, ...entries.map(([id]) => id)));
  onPartition((p) => p.xtrim(streamKey, 'MINID', entries[entries.length - 1][0]));
  for (const [channel, message] of plan.wakeMessages) {
    finish.push(wakeCommand(ctx.redis, channel, message));
  }
  await execByNode(ctx.redis, finish);
  return appends.length;
}

/** API emails of the queues' owners, needed only for the legacy settings events. */
async function emailsFor(
  ctx: AppContext,
  items: DispatchItem[],
  queues: QueueSettings[],
): Promise<Map<number, string>> {
  if (!items.some((i) => i.envelope.event.type === 'user_settings')) return new Map();
  const { rows } = await sqlPool(ctx).query<{ id: number; email: string }>(
    'SELECT id, email FROM users WHERE id = ANY($1::int[])',
    [[...new Set(queues.map((q) => q.userId))]],
  );
  return new Map(rows.map((u) => [u.id, u.email]));
}
