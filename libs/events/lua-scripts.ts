import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RedisClient } from '../core/context';

/**
 * The Redis scripts of the events tier, one file each in scripts/ (what each takes and returns is
 * written at its top), read once when this module loads. ioredis runs a defined command by its
 * SHA (EVALSHA), sending the text only to a Redis that lacks it (a restart, a new cluster node).
 * scripts/build.js copies the files beside the compiled code in dist/.
 */
const read = (name: string): string =>
  readFileSync(path.join(__dirname, 'scripts', `${name}.lua`), 'utf8');

/** Commands without `numberOfKeys` take the number of keys first: one call serves many queues. */
const SCRIPTS: Record<string, { lua: string; numberOfKeys?: number }> = {
  chatQueuePoll: { lua: read('queue-poll') },
  chatQueueAppend: { lua: read('queue-append') },
  chatQueueGc: { numberOfKeys: 2, lua: read('queue-gc') },
  chatLeaseRenew: { numberOfKeys: 1, lua: read('lease-renew') },
  chatLeaseRelease: { numberOfKeys: 1, lua: read('lease-release') },
};

/** scripts/queue-gc.lua's reply: the queue was polled since (its last access), or deleted. */
export type QueueGcReply = ['kept', string] | ['gone', string, string, string[]];

/** A connection with the scripts defined as commands (the poll and append ones run in batches). */
export type ScriptRedis = RedisClient & {
  chatQueueGc(queueKey: string, eventsKey: string, cutoff: number): Promise<QueueGcReply>;
  chatLeaseRenew(leaseKey: string, consumer: string, leaseMs: number): Promise<number>;
  chatLeaseRelease(leaseKey: string, consumer: string): Promise<number>;
};

/** Defines the scripts on a connection, once however many stores share it. */
export function withScripts(redis: RedisClient): ScriptRedis {
  const r = redis as ScriptRedis;
  if (typeof r.chatLeaseRenew !== 'function') {
    for (const [name, definition] of Object.entries(SCRIPTS)) {
      redis.defineCommand(name, definition);
    }
  }
  return r;
}
