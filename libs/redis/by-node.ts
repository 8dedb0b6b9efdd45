import { at } from '../core/at';
import { keySlot } from './key-slot';
import type { ChainableCommander, Cluster } from 'ioredis';
import type { RedisClient } from '../core/context';
import { isCluster } from './connect';

const REPLICA_WAIT_MS = 500;

/**
 * `items` grouped for multi-key script calls, in order, at most `max` to a group: one group per
 * slot on a cluster (a script may only touch keys of one slot), any items together on one Redis.
 */
export function slotGroups<T>(
  redis: RedisClient,
  items: T[],
  keyOf: (item: T) => string,
  max: number,
): T[][] {
  const groups: T[][] = [];
  // On one Redis any items go together: no key is needed, only groups of at most `max`.
  if (!isCluster(redis)) {
    for (let i = 0; i < items.length; i += max) groups.push(items.slice(i, i + max));
    return groups;
  }
  for (const indexes of slotIndexGroups(redis, items.map(keyOf), max)) {
    const group = new Array<T>(indexes.length);
    for (let j = 0; j < indexes.length; j++) group[j] = at(items, at(indexes, j));
    groups.push(group);
  }
  return groups;
}

/** `slotGroups` of the items with these keys, as groups of their indexes. */
export function slotIndexGroups(redis: RedisClient, keys: string[], max: number): number[][] {
  const groups: number[][] = [];
  const open = new Map<number, number[]>();
  const cluster = isCluster(redis);
  for (let i = 0; i < keys.length; i++) {
    const slot = cluster ? keySlot(at(keys, i)) : 0;
    let group = open.get(slot);
    if (!group || group.length >= max) {
      group = [];
      groups.push(group);
      open.set(slot, group);
    }
    group.push(i);
  }
  return groups;
}

/**
 * One command of a batch: the key that places it, the command (a Redis command or a script the
 * client defined, as ioredis names its method) and its arguments. Data rather than a closure that
 * adds it: V8 keeps a closure's optimized code only while a closure that ran it lives, so closures
 * made per batch and dropped after one call lost theirs at every full collection and were
 * compiled again (`git show c6c1688:docs/benchmarks.md`, "Closures compiled again").
 */
export interface BatchCommand extends RedisCommand {
  key: string;
}

/** A command by ioredis's name for it (a Redis command, or a script the client defined). */
export interface RedisCommand {
  command: string;
  args: (string | number)[];
}

type CommandMethods = Record<string, ((...args: (string | number)[]) => unknown) | undefined>;

/** Adds a command to a pipeline or transaction. */
export function addCommand(pipeline: ChainableCommander, { command, args }: RedisCommand): void {
  const method = (pipeline as unknown as CommandMethods)[command];
  if (typeof method !== 'function') throw new Error(`no Redis command ${command}`);
  method.apply(pipeline, args);
}

/**
 * Runs commands in as few round trips as the topology allows and returns their replies in order.
 * One Redis: one pipeline. A cluster refuses a pipeline whose keys live on different nodes, so
 * commands are grouped by the nodes serving their key's slot, one pipeline per group, sent
 * together; commands of one slot keep their order. Throws the first command error.
 *
 * `replicated`: on a cluster, each node's pipeline ends with WAIT for one replica, so what the
 * commands wrote survives that master dying (replication is asynchronous: a promoted replica
 * lacks whatever it had not received). Callers use it where losing an acknowledged write would
 * lose a committed event. A master without replicas is not waited for; one whose replica does
 * not answer within REPLICA_WAIT_MS goes on unreplicated rather than stall dispatch.
 *
 * A command refused with MOVED (its slot changed master, as after a failover) throws, having had
 * the slot map reloaded, so the caller's retry goes to the new master. The group is not retried
 * here: its other commands may have run.
 */
export async function execByNode(
  redis: RedisClient,
  commands: BatchCommand[],
  options: { replicated?: boolean } = {},
): Promise<unknown[]> {
  if (commands.length === 0) return [];
  if (!isCluster(redis)) {
    const pipeline = redis.pipeline();
    for (const command of commands) addCommand(pipeline, command);
    return replies(await pipeline.exec());
  }
  const groups = new Map<string, NodeGroup>();
  for (let i = 0; i < commands.length; i++) {
    // A slot whose nodes are not known yet (topology still loading) gets a pipeline of its own.
    const slot = keySlot(at(commands, i).key);
    const nodes = redis.slots[slot] ?? [];
    const node = nodes.length ? nodes.join(',') : `slot ${slot}`;
    const group = groups.get(node);
    if (group) group.indexes.push(i);
    else groups.set(node, { indexes: [i], replicas: Math.max(0, nodes.length - 1) });
  }
  const out = new Array<unknown>(commands.length);
  const sent: Promise<void>[] = [];
  for (const group of groups.values()) {
    sent.push(execNodeGroup(redis, commands, group, options.replicated ?? false, out));
  }
  await Promise.all(sent);
  return out;
}

/** The commands of one cluster node's slots, by their indexes in the batch. */
interface NodeGroup {
  indexes: number[];
  replicas: number;
}

/** Runs one node's pipeline of a batch, writing its replies into `out` at their commands' places. */
async function execNodeGroup(
  redis: Cluster,
  commands: BatchCommand[],
  { indexes, replicas }: NodeGroup,
  replicated: boolean,
  out: unknown[],
): Promise<void> {
  const pipeline = redis.pipeline();
  for (const i of indexes) addCommand(pipeline, at(commands, i));
  if (replicated && replicas > 0) pipeline.wait(1, REPLICA_WAIT_MS);
  const results = await pipeline.exec();
  // ioredis follows a pipeline's MOVED only when every command got it; with any other reply
  // in the pipeline (WAIT's, or a command whose slot did not move) it hands the error back
  // and keeps its stale slot map, so every later batch would go to the old node again.
  if (results?.some(isMoved)) {
    await new Promise<void>((resolve) => redis.refreshSlotsCache(() => resolve()));
  }
  const values = replies(results);
  for (let j = 0; j < indexes.length; j++) out[at(indexes, j)] = values[j];
}

const isMoved = ([err]: [Error | null, unknown]): boolean =>
  err?.message.startsWith('MOVED ') ?? false;

/** A pipeline's replies, in order; throws the first command error. */
function replies(results: [Error | null, unknown][] | null): unknown[] {
  const values = new Array<unknown>(results?.length ?? 0);
  for (let i = 0; i < values.length; i++) {
    const [err, value] = at(results ?? [], i);
    if (err) throw err;
    values[i] = value;
  }
  return values;
}
