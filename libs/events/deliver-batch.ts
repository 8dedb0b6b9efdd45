import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { execByNode, type BatchCommand } from '../redis/by-node';
import { perKeyCommands, perKeyReplies } from '../redis/per-key';
import type { QueueSettings } from '../protocol/queue';
import type { AppendResult, QueueAppend } from './queue-store';
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
  target: DeliveryTarget,
  batches: PartitionBatch[],
): Promise<number> {
  const { directory, local } = target;
  const planned = await lookUp(ctx, target.keys, batches);
  const resolving: ReturnType<QueueDirectory['resolve']>[] = [];
  for (const { partition, sets } of planned) {
    resolving.push(directory.resolve(partition, queueIdsOf(sets)));
  }
  const resolved = await Promise.all(resolving);
  const emails = await emailsFor(ctx, planned, resolved);
  const appends: QueueAppend[][] = [];
  for (let i = 0; i < planned.length; i++) {
    const live = new Map<string, QueueSettings>();
    for (const queue of resolved[i].live) live.set(queue.id, queue);
    appends.push(planAppends(planned[i].fresh, planned[i].sets, live, (id) => emails.get(id)));
  }
  const results = await directory.store.append(appends.flat());
  const { finish, localWakeups } = finishCommands(ctx, target, {
    planned,
    resolved,
    appends,
    results,
  });
  local?.end(localWakeups);
  await execByNode(ctx.redis, finish);
  return results.length;
}

/**
 * Round 1: parses the batches and reads, in one round trip, which of their outbox rows were
 * delivered already and the queue-id sets of the users and realms they name.
 */
async function lookUp(
  ctx: AppContext,
  keys: EventKeys,
  batches: PartitionBatch[],
): Promise<PlannedPart[]> {
  // Loops rather than callbacks: closures made per batch lost their optimized code at every
  // full collection and were compiled again (see `BatchCommand`).
  const parts: Part[] = [];
  for (const { partition, entries } of batches) {
    const items = parseEntries(entries);
    parts.push({
      partition,
      entries,
      items,
      streamKey: keys.domainStream(partition),
      ...batchAudience(items),
    });
  }
  // Every key of a partition shares its stream's slot.
  const lookups: BatchCommand[] = [];
  const setReads: number[] = [];
  for (const { partition, items, users, publicRealms, streamKey } of parts) {
    for (const { entryId, envelope } of items) {
      const key = keys.dispatched(partition, envelope.outboxId);
      lookups.push({
        key,
        command: 'set',
        args: [key, entryId, 'EX', DEDUPE_SECONDS, 'NX', 'GET'],
      });
    }
    const setKeys: string[] = [];
    for (const userId of users) setKeys.push(keys.userQueues(partition, userId));
    for (const realmId of publicRealms) setKeys.push(keys.realmPublicQueues(partition, realmId));
    const reads = perKeyCommands(streamKey, 'SMEMBERS', setKeys);
    lookups.push(...reads);
    setReads.push(reads.length);
  }
  const looked = await execByNode(ctx.redis, lookups);
  let at = 0;
  const planned: PlannedPart[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const deliveredBy = looked.slice(at, (at += part.items.length)) as (string | null)[];
    const members = perKeyReplies<string[]>(looked.slice(at, (at += setReads[i])));
    const sets: QueueSets = { ofUser: new Map(), publicOfRealm: new Map() };
    let m = 0;
    for (const userId of part.users) sets.ofUser.set(userId, members[m++]);
    for (const realmId of part.publicRealms) sets.publicOfRealm.set(realmId, members[m++]);
    planned.push({ ...part, fresh: freshItems(part.items, deliveredBy), sets });
  }
  return planned;
}

/**
 * Round 4's commands: acknowledgement and trimming of the entries, clean-up of the queues found
 * gone and wake-up messages for other processes; and the wake-ups of this process's own polls.
 */
function finishCommands(
  ctx: AppContext,
  { directory, local }: DeliveryTarget,
  round: {
    planned: PlannedPart[];
    resolved: { gone: string[] }[];
    appends: QueueAppend[][];
    results: AppendResult[];
  },
): { finish: BatchCommand[]; localWakeups: [string, Wakeup][] } {
  const { planned, resolved, appends, results } = round;
  const finish: BatchCommand[] = [];
  const localWakeups: [string, Wakeup][] = [];
  let at = 0;
  for (let i = 0; i < planned.length; i++) {
    const { partition, sets, streamKey, entries } = planned[i];
    const partResults = results.slice(at, (at += appends[i].length));
    const plan = planFinish(appends[i], partResults, sets, resolved[i].gone, local);
    localWakeups.push(...plan.localWakeups);
    for (const { queueId, userIds, realmIds } of plan.cleanups) {
      directory.forget(queueId);
      for (const command of directory.store.forgetCommands(partition, queueId, userIds, realmIds)) {
        finish.push({ key: streamKey, ...command });
      }
    }
    const ids: string[] = [];
    for (const [id] of entries) ids.push(id);
    finish.push({ key: streamKey, command: 'xack', args: [streamKey, DISPATCH_GROUP, ...ids] });
    finish.push({
      key: streamKey,
      command: 'xtrim',
      args: [streamKey, 'MINID', ids[ids.length - 1]],
    });
    for (const [channel, message] of plan.wakeMessages) {
      finish.push(wakeCommand(ctx.redis, channel, message));
    }
  }
  return { finish, localWakeups };
}

/** One partition's batch, parsed, with whose queues it may reach. */
interface Part extends PartitionBatch {
  items: DispatchItem[];
  streamKey: string;
  users: number[];
  publicRealms: number[];
}

/** A partition's batch with the items still to deliver and the queue sets they reach. */
interface PlannedPart extends Part {
  fresh: DispatchItem[];
  sets: QueueSets;
}

const isSettingsEvent = ({ envelope }: DispatchItem): boolean =>
  envelope.event.type === 'user_settings';
const hasSettingsEvent = ({ fresh }: PlannedPart): boolean => fresh.some(isSettingsEvent);

/** API emails of the queues' owners, needed only for the legacy settings events. */
async function emailsFor(
  ctx: AppContext,
  planned: PlannedPart[],
  resolved: { live: QueueSettings[] }[],
): Promise<Map<number, string>> {
  if (!planned.some(hasSettingsEvent)) return new Map();
  const owners = new Set<number>();
  for (const { live } of resolved) for (const queue of live) owners.add(queue.userId);
  const { rows } = await sqlPool(ctx).query<{ id: number; email: string }>(
    'SELECT id, email FROM users WHERE id = ANY($1::int[])',
    [[...owners]],
  );
  return new Map(rows.map((u) => [u.id, u.email]));
}
