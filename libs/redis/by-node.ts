import { keySlot } from './key-slot';
import type { ChainableCommander } from 'ioredis';
import { isCluster, type RedisClient } from './connect';

/** One command of a batch: the key that places it, and how to add it to a pipeline. */
export interface BatchCommand {
  key: string;
  add(pipeline: ChainableCommander): void;
}

/**
 * Runs commands in as few round trips as the topology allows and returns their replies in order.
 * One Redis: one pipeline. A cluster refuses a pipeline whose keys live on different nodes, so
 * commands are grouped by the nodes serving their key's slot, one pipeline per group, sent
 * together; commands of one slot keep their order. Throws the first command error.
 */
export async function execByNode(redis: RedisClient, commands: BatchCommand[]): Promise<unknown[]> {
  if (commands.length === 0) return [];
  if (!isCluster(redis)) {
    const pipeline = redis.pipeline();
    for (const command of commands) command.add(pipeline);
    return replies(await pipeline.exec());
  }
  const groups = new Map<string, number[]>();
  commands.forEach(({ key }, i) => {
    // Unknown slots (topology not loaded yet) share a group: ioredis routes it and follows MOVED.
    const node = redis.slots[keySlot(key)]?.join(',') ?? '';
    const group = groups.get(node);
    if (group) group.push(i);
    else groups.set(node, [i]);
  });
  const out = new Array<unknown>(commands.length);
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      const pipeline = redis.pipeline();
      for (const i of indexes) commands[i].add(pipeline);
      replies(await pipeline.exec()).forEach((value, j) => (out[indexes[j]] = value));
    }),
  );
  return out;
}

function replies(results: [Error | null, unknown][] | null): unknown[] {
  return (results ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
