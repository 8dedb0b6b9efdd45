/**
 * Redis memory of the event queues (not a timed test). Run with `npx tsx bench/redis-memory.ts`.
 *
 * Against one Redis (REDIS_URL/REDIS_CLUSTER_NODES as the app reads them; default the local
 * one), under a scratch prefix removed afterwards: registers BENCH_QUEUES idle queues (default
 * 2,000) through the queue store, as POST /register does, then appends BENCH_EVENTS (default 10)
 * message events of BENCH_CONTENT_BYTES (default 200) characters to each, as the dispatcher
 * does, and reports `used_memory` growth per queue and per queued event. Run it on an otherwise
 * quiet Redis: other clients' writes show up in the deltas.
 */
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../libs/config/load-config';
import { QueueStore } from '../libs/events/queue-store';
import { DEFAULT_CAPABILITIES } from '../libs/protocol/queue';
import type { RedisClient } from '../libs/core/context';
import { connectRedis, isCluster } from '../libs/redis/connect';

const QUEUES = Number(process.env.BENCH_QUEUES ?? 2000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10);
const CONTENT = Number(process.env.BENCH_CONTENT_BYTES ?? 200);

async function usedMemory(redis: RedisClient): Promise<number> {
  const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
  let total = 0;
  for (const node of nodes) {
    total += Number(/used_memory:(\d+)/.exec(await node.info('memory'))?.[1]);
  }
  return total;
}

async function main(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    REDIS_PREFIX: `bench-mem:${randomBytes(3).toString('hex')}:`,
  });
  const redis = connectRedis(config);
  const store = new QueueStore(redis, config.redisPrefix, 600, config.dispatchPartitions);
  try {
    const start = await usedMemory(redis);
    const ids: string[] = [];
    for (let i = 0; i < QUEUES; i++) {
      const queue = await store.create({
        userId: 1000 + i,
        realmId: 2,
        eventTypes: null,
        narrow: [],
        allPublicStreams: false,
        applyMarkdown: true,
        clientGravatar: true,
        slimPresence: true,
        capabilities: { ...DEFAULT_CAPABILITIES, notification_settings_null: true },
        client: 'ZulipElectron/5.11.1',
      });
      ids.push(queue.id);
    }
    const idle = await usedMemory(redis);
    const content = 'x'.repeat(CONTENT);
    for (let e = 0; e < EVENTS; e++) {
      for (let i = 0; i < ids.length; i += 500) {
        await store.append(
          ids.slice(i, i + 500).map((queueId, j) => ({
            queueId,
            mark: `${Date.now()}-${e * QUEUES + i + j}`,
            xid: String(100000 + e),
            events: [
              {
                type: 'message',
                flags: [],
                message: {
                  id: 100000 + e,
                  sender_id: 7,
                  sender_full_name: 'Bench Sender',
                  sender_email: 'sender@example.com',
                  type: 'stream',
                  stream_id: 3,
                  display_recipient: 'general',
                  subject: 'bench topic',
                  content: `<p>${content}</p>`,
                  content_type: 'text/html',
                  timestamp: Math.floor(Date.now() / 1000),
                  reactions: [],
                  submessages: [],
                  topic_links: [],
                  client: 'ZulipElectron',
                  avatar_url: null,
                  recipient_id: 9,
                  sender_realm_str: 'bench',
                  is_me_message: false,
                },
              },
            ],
          })),
        );
      }
    }
    const full = await usedMemory(redis);
    const sample = await redis.memory('USAGE', store.keys.queue(ids[0]));
    const sampleEvents = await redis.memory('USAGE', store.keys.events(ids[0]));
    process.stdout.write(
      `${QUEUES} idle queues: ${((idle - start) / QUEUES).toFixed(0)} bytes each ` +
        `(MEMORY USAGE of one queue hash: ${String(sample)})\n` +
        `${QUEUES * EVENTS} queued events of ${CONTENT}-character content: ` +
        `${((full - idle) / (QUEUES * EVENTS)).toFixed(0)} bytes each ` +
        `(MEMORY USAGE of one ${EVENTS}-event list: ${String(sampleEvents)})\n`,
    );
  } finally {
    for (const node of isCluster(redis) ? redis.nodes('master') : [redis]) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(
          cursor,
          'MATCH',
          `${config.redisPrefix}*`,
          'COUNT',
          1000,
        );
        for (const key of keys) await redis.unlink(key);
        cursor = next;
      } while (cursor !== '0');
    }
    redis.disconnect();
  }
}

void main();
