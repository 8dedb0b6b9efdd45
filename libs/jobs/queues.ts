import { Queue } from 'bullmq';
import type { Config } from '../core/config';
import type { AppContext } from '../core/context';
import { logFailure } from '../stores/failures';
import type { QueueNameValue } from './job-catalogue';

/**
 * BullMQ key prefix of one queue, under the deployment's Redis prefix. The braces are a hash
 * tag: BullMQ's scripts touch many keys of a queue at once, which Redis Cluster allows only
 * within one slot, so each queue's keys share one; a tag per queue lets the queues sit on
 * different shards (BullMQ's "Redis Cluster" pattern).
 */
export const bullPrefix = (redisPrefix: string, queue: QueueNameValue) =>
  `{${redisPrefix}bull:${queue}}`;

/**
 * The prefix every queue shared before each had its own hash tag (one slot, one shard, for all
 * of them). Only `move-jobs-to-queue-slots` reads it, to move what was left there.
 */
export const sharedBullPrefix = (redisPrefix: string) => `{${redisPrefix}bull}`;

/** Where a queue lives: what a BullMQ Queue, Worker or QueueEvents is given besides a connection. */
export const queueLocation = (config: Pick<Config, 'redisPrefix'>, name: QueueNameValue) => ({
  name,
  prefix: bullPrefix(config.redisPrefix, name),
});

/*
 * Producers share the context's Redis connection, so a Queue object holds no connection of its
 * own and needs no closing; one per (context, queue name).
 */
const queues = new WeakMap<AppContext, Map<QueueNameValue, Queue>>();

/**
 * The context's BullMQ Queue of `name`: the one place producers, the metrics and the upgrade
 * command get a queue from, so that every one of them finds the queue's keys in the same place.
 */
export function jobQueue(ctx: AppContext, name: QueueNameValue): Queue {
  let byName = queues.get(ctx);
  if (!byName) {
    byName = new Map();
    queues.set(ctx, byName);
  }
  let queue = byName.get(name);
  if (!queue) {
    const { prefix } = queueLocation(ctx.config, name);
    queue = new Queue(name, { connection: ctx.redis, prefix });
    // Without a listener BullMQ prints each connection error's stack on the console.
    queue.on('error', (err) =>
      logFailure(ctx.log, 'worker', 'job queue error', err, 'warn', { queue: name }),
    );
    byName.set(name, queue);
  }
  return queue;
}
