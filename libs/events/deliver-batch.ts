import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { execByNode, type BatchCommand } from '../redis/by-node';
import { perKeyCommands, perKeyReplies } from '../redis/per-key';
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
import type { Wakeup } from './wake-protocol';

/**
 * How long a delivered outbox row is remembered. A row is published twice only when the sweeper
 * finds it unmarked (3 s after commit) while its first publish is still on the way, so minutes
 * suffice, and a day of keys (one per row and partition) would cost Redis gigabytes.
 */
const DEDUPE_SECONDS = 15 * 60;

/** What this process keeps for the partitions it delivers. */
export interface DeliveryTarget {
  keys: EventKeys;
  directory: QueueDirectory;
  /** This delivery's part in waking this process's own polls; ended here once it has appended. */
  local?: LocalDelivery;
}

/** Entries read from one partition's domain stream. */
export interface PartitionBatch {
  partition: number;
  entries: StreamEntry[];
}

/**
 * Carries out batches of one or more partitions' domain streams (planned by `dispatch-plan`) in
 * four round trips, whatever their size and number:
 * 1. dedupe keys of the outbox rows and the queue ids of every user (and realm, for public
 *    channel messages) the batches name, each partition's sets read by one script call
 *    (`perKeyCommands`);
 * 2. the settings of queues this process has not seen yet;
 * 3. every append, in stream order;
 * 4. acknowledgement and trimming of the entries, clean-up of queues found gone, and wake-up
 *    messages for the other events processes with waiting polls, carrying the events they woke
 *    them for.
 * A message to a 50-member channel reaches every partition, so the partitions a process leads are
 * delivered together (`Dispatcher`): one set of round trips instead of one per partition. On a
 * cluster each round takes one round trip per node, sent together. This process's own polls are
 * woken after round 3, once no other delivery under way has yet to append (`LocalWakeups`).
 */
export async function deliverBatches(
  ctx: AppContext,
  { keys, directory, local }: DeliveryTarget,
  batches: PartitionBatch[],
): Promise<number> {
  const parts = batches.map(({ partition, entries }) => {
    const items = parseEntries(entries);
    return {
      partition,
      entries,
      items,
      streamKey: keys.domainStream(partition),
      ...batchAudience(items),
    };
  });
  // Every key of a partition shares its stream's slot.
  const lookups: BatchCommand[] = [];
  const setReads = parts.map(({ partition, items, users, publicRealms, streamKey }) => {
    for (const { entryId, envelope } of items) {
      const key = keys.dispatched(partition, envelope.outboxId);
      lookups.push({
        key,
        add: (p) => p.set(key, entryId, 'EX', DEDUPE_SECONDS, 'NX', 'GET'),
      });
    }
    const reads = perKeyCommands(streamKey, 'SMEMBERS', [
      ...users.map((userId) => keys.userQueues(partition, userId)),
      ...publicRealms.map((realmId) => keys.realmPublicQueues(partition, realmId)),
    ]);
    lookups.push(...reads);
    return reads.length;
  });
  const looked = await execByNode(ctx.redis, lookups);
  let at = 0;
  const planned = parts.map((part, i) => {
    const deliveredBy = looked.slice(at, (at += part.items.length)) as (string | null)[];
    const members = perKeyReplies<string[]>(looked.slice(at, (at += setReads[i])));
    const sets: QueueSets = {
      ofUser: new Map(part.users.map((userId, j) => [userId, members[j]])),
      publicOfRealm: new Map(
        part.publicRealms.map((realmId, j) => [realmId, members[part.users.length + j]]),
      ),
    };
    return { ...part, fresh: freshItems(part.items, deliveredBy), sets };
  });

  const resolved = await Promise.all(
    planned.map(({ partition, sets }) => directory.resolve(partition, queueIdsOf(sets))),
  );
  const emails = await emailsFor(
    ctx,
    planned.flatMap((p) => p.fresh),
    resolved.flatMap((r) => r.live),
  );
  const appends = planned.map(({ fresh, sets }, i) =>
    planAppends(fresh, sets, new Map(resolved[i].live.map((q) => [q.id, q])), (id) =>
      emails.get(id),
    ),
  );
  const results = await directory.store.append(appends.flat());

  const finish: BatchCommand[] = [];
  const localWakeups: [string, Wakeup][] = [];
  at = 0;
  planned.forEach(({ partition, sets, streamKey, entries }, i) => {
    const partResults = results.slice(at, (at += appends[i].length));
    const plan = planFinish(appends[i], partResults, sets, resolved[i].gone, local?.channel);
    localWakeups.push(...plan.localWakeups);
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
  });
  local?.end(localWakeups);
  await execByNode(ctx.redis, finish);
  return results.length;
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
