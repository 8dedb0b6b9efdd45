import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { execByNode, type BatchCommand } from '../redis/by-node';
import { perKeyCommands, perKeyReplies } from '../redis/per-key';
import type { QueueSettings } from '../protocol/queue';
import type { AppendResult, QueueAppend } from './queue-store';
import {
  batchAudience,
  DeliveryFormatters,
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
import type { QueueSetCache } from './queue-set-cache';
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
  const planned = await lookUp(ctx, target, batches);
  const resolving: ReturnType<QueueDirectory['resolve']>[] = [];
  for (const { partition, sets } of planned) {
    resolving.push(directory.resolve(partition, queueIdsOf(sets)));
  }
  const resolved = await Promise.all(resolving);
  const emails = await emailsFor(ctx, planned, resolved);
  const formatters = new DeliveryFormatters((id) => emails.get(id));
  const appends: QueueAppend[][] = [];
  for (let i = 0; i < planned.length; i++) {
    const live = new Map<string, QueueSettings>();
    for (const queue of resolved[i].live) live.set(queue.id, queue);
    appends.push(planAppends(planned[i].fresh, planned[i].sets, live, formatters));
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
 * delivered already, each partition's sets version and the queue-id sets of the users and realms
 * they name that this process does not keep (`QueueSetCache`). Sets kept under a version that has
 * changed since are read in a second round trip.
 */
async function lookUp(
  ctx: AppContext,
  { keys, directory }: DeliveryTarget,
  batches: PartitionBatch[],
): Promise<PlannedPart[]> {
  // Loops rather than callbacks: closures made per batch lost their optimized code at every
  // full collection and were compiled again (see `BatchCommand`).
  const parts: Part[] = [];
  for (const { partition, entries } of batches) {
    const items = parseEntries(entries);
    const audience = batchAudience(items);
    const setKeys: string[] = [];
    for (const userId of audience.users) setKeys.push(keys.userQueues(partition, userId));
    for (const realmId of audience.publicRealms) {
      setKeys.push(keys.realmPublicQueues(partition, realmId));
    }
    parts.push({
      partition,
      entries,
      items,
      streamKey: keys.domainStream(partition),
      ...audience,
      setKeys,
    });
  }
  // Every key of a partition shares its stream's slot; the version is read before the sets.
  const lookups: BatchCommand[] = [];
  const reading: string[][] = [];
  for (const { partition, items, setKeys, streamKey } of parts) {
    for (const { entryId, envelope } of items) {
      const key = keys.dispatched(partition, envelope.outboxId);
      lookups.push({
        key,
        command: 'set',
        args: [key, entryId, 'EX', DEDUPE_SECONDS, 'NX', 'GET'],
      });
    }
    const versionKey = keys.queueSetsVersion(partition);
    lookups.push({ key: versionKey, command: 'get', args: [versionKey] });
    const unkept = directory.sets.missing(partition, setKeys);
    reading.push(unkept);
    lookups.push(...perKeyCommands(streamKey, 'SMEMBERS', unkept));
  }
  const looked = await execByNode(ctx.redis, lookups);
  let at = 0;
  const delivered: (string | null)[][] = [];
  const members: Map<string, string[]>[] = [];
  for (let i = 0; i < parts.length; i++) {
    const { partition, items, setKeys, streamKey } = parts[i];
    delivered.push(looked.slice(at, (at += items.length)) as (string | null)[]);
    directory.sets.versionIs(partition, looked[at++] as string | null);
    const calls = perKeyCommands(streamKey, 'SMEMBERS', reading[i]).length;
    const read = new Map<string, string[]>();
    keepSets(directory.sets, partition, reading[i], looked.slice(at, (at += calls)), read);
    reading[i] = directory.sets.take(partition, setKeys, read);
    members.push(read);
  }
  await readDropped(ctx, directory.sets, { parts, missing: reading, members });
  return parts.map((part, i) => ({
    ...part,
    fresh: freshItems(part.items, delivered[i]),
    sets: setsOf(part, members[i]),
  }));
}

/** Keeps the members of `keys` read from `replies`, and adds them to `into`. */
function keepSets(
  cache: QueueSetCache,
  partition: number,
  keys: string[],
  replies: unknown[],
  into: Map<string, string[]>,
): void {
  const members = perKeyReplies<string[]>(replies);
  for (let k = 0; k < keys.length; k++) {
    cache.put(partition, keys[k], members[k]);
    into.set(keys[k], members[k]);
  }
}

/** Reads the sets `versionIs` dropped (`missing[i]` of `parts[i]`), in one round trip. */
async function readDropped(
  ctx: AppContext,
  cache: QueueSetCache,
  {
    parts,
    missing,
    members,
  }: { parts: Part[]; missing: string[][]; members: Map<string, string[]>[] },
): Promise<void> {
  const reads: BatchCommand[] = [];
  const calls: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const commands = perKeyCommands(parts[i].streamKey, 'SMEMBERS', missing[i]);
    calls.push(commands.length);
    reads.push(...commands);
  }
  if (reads.length === 0) return;
  const replies = await execByNode(ctx.redis, reads);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const callReplies = replies.slice(at, (at += calls[i]));
    keepSets(cache, parts[i].partition, missing[i], callReplies, members[i]);
  }
}

function setsOf({ users, publicRealms, setKeys }: Part, members: Map<string, string[]>): QueueSets {
  const sets: QueueSets = { ofUser: new Map(), publicOfRealm: new Map() };
  let k = 0;
  for (const userId of users) sets.ofUser.set(userId, members.get(setKeys[k++]) ?? []);
  for (const realmId of publicRealms) {
    sets.publicOfRealm.set(realmId, members.get(setKeys[k++]) ?? []);
  }
  return sets;
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
  /** The queue-id set keys of `users`, then of `publicRealms`. */
  setKeys: string[];
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
