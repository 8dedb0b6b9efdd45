import { Queue } from 'bullmq';
import type { Config } from '../core/config';
import type { AppContext, RedisClient } from '../core/context';
import { connectRedis } from '../redis/connect';
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

/** What the producers beside one main connection share (see `jobsConnection`). */
interface Producers {
  connection: RedisClient;
  queues: Map<QueueNameValue, Queue>;
}

const producersOf = new WeakMap<RedisClient, Producers>();

function producers(ctx: AppContext): Producers {
  let made = producersOf.get(ctx.redis);
  if (!made) {
    made = { connection: connectRedis(ctx.config, { log: ctx.log }), queues: new Map() };
    producersOf.set(ctx.redis, made);
  }
  return made;
}

/**
 * The connection a context's BullMQ queues share, made on first use beside the context's own and
 * closed with it (`closeJobQueues`). Not the context's own: BullMQ defines its 60-odd scripts on
 * the connection it is given, and ioredis copies every script of a connection onto each pipeline
 * made from it, which made each of the events tier's pipelines (several per message) cost 45 µs
 * instead of 5.
 */
export function jobsConnection(ctx: AppContext): RedisClient {
  return producers(ctx).connection;
}

/** Closes the queues and the connection made beside `redis`, if any were. */
export async function closeJobQueues(redis: RedisClient): Promise<void> {
  const made = producersOf.get(redis);
  producersOf.delete(redis);
  if (!made) return;
  await Promise.all([...made.queues.values()].map((queue) => queue.close()));
  made.connection.disconnect();
}

/**
 * The context's BullMQ Queue of `name` (one per main connection and name, holding no connection
 * of its own): the one place producers, the metrics and the upgrade command get a queue from, so
 * that every one of them finds the queue's keys in the same place.
 */
export function jobQueue(ctx: AppContext, name: QueueNameValue): Queue {
  const { connection, queues } = producers(ctx);
  let queue = queues.get(name);
  if (!queue) {
    const { prefix } = queueLocation(ctx.config, name);
    queue = new Queue(name, { connection, prefix });
    // Without a listener BullMQ prints each connection error's stack on the console.
    queue.on('error', (err) =>
      logFailure(ctx.log, 'worker', 'job queue error', err, 'warn', { queue: name }),
    );
    queues.set(name, queue);
  }
  return queue;
}
