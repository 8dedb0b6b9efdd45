import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiApp } from '../apps/api/app';
import { loadConfig } from '../libs/config/load-config';
import type { Config } from '../libs/core/config';
import { createDb } from '../libs/db/client';
import type { AppContext, RedisClient } from '../libs/core/context';
import { closeJobQueues } from '../libs/jobs/queues';
import { createLogger } from '../libs/log/create-logger';
import { connectRedis, isCluster } from '../libs/redis/connect';
import {
  databaseUrl,
  dropDatabase,
  runId,
  templateDb,
  TEST_DB_PREFIX,
  withAdminClient,
} from './databases';
import { expectOutboxEventsDocumented } from './event-schemas';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
/** Seed nodes of a Redis Cluster (scripts/redis-cluster.sh start) to run against instead. */
export const TEST_REDIS_CLUSTER_NODES = process.env.TEST_REDIS_CLUSTER_NODES ?? '';

export interface TestContext extends AppContext {
  app: Express;
  databaseName: string;
  close(): Promise<void>;
}

/**
 * A private world for one test file: its own database copied from the migrated template and its
 * own Redis key prefix, so files run in parallel against the real services.
 */
export async function startTestContext(
  overrides: Record<string, string> = {},
): Promise<TestContext> {
  const run = runId();
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseName = `${TEST_DB_PREFIX}${run}_${suffix}`;
  await withAdminClient(async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${databaseName}" TEMPLATE "${templateDb(run)}"`);
        return;
      } catch (err) {
        // Two files copying the template at the same instant can collide; try again shortly.
        if (attempt >= 20) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  });
  // Realm and user ids repeat across test databases, so uploads keyed by them need their own
  // directory per file (a shared one let one file's icon replace another's).
  const uploadsDir =
    overrides.UPLOADS_DIR ?? mkdtempSync(path.join(tmpdir(), 'chat-test-uploads-'));
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    UPLOADS_DIR: uploadsDir,
    DATABASE_URL: databaseUrl(databaseName),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES,
    REDIS_PREFIX: `test:${suffix}:`,
    EXTERNAL_HOST: 'chat.test',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    LOG_FORMAT: 'pretty',
    // Tests make many requests as one user; the limiter's own test sets small limits.
    RATE_LIMIT_API_REQUESTS: '1000000',
    RATE_LIMIT_AUTH_ATTEMPTS: '1000',
    // A busy test machine must not make requests refused; the overload tests set their limit.
    OVERLOAD_EVENT_LOOP_LAG_MS: '60000',
    OVERLOAD_ANSWER_TARGET_MS: '60000',
    ...overrides,
  });
  const db = createDb(config.databaseUrl, { maxConnections: 5 });
  const redis = connectRedis(config);
  const log = createLogger({ level: config.logLevel, format: config.logFormat });
  const ctx: AppContext = { db, redis, config, log };
  return {
    ...ctx,
    app: createApiApp(ctx),
    databaseName,
    async close() {
      try {
        await expectOutboxEventsDocumented(ctx);
      } finally {
        await db.$disconnect();
        await closeJobQueues(redis);
        await deleteKeys(redis, `${config.redisPrefix}*`);
        redis.disconnect();
        await withAdminClient((client) => dropDatabase(client, databaseName));
        if (overrides.UPLOADS_DIR === undefined)
          rmSync(uploadsDir, { recursive: true, force: true });
      }
    },
  };
}

/** The environment that points a child process at the same Redis (or cluster) as `config`. */
export const redisEnv = (config: Config): Record<string, string> => ({
  REDIS_URL: config.redisUrl,
  REDIS_CLUSTER_NODES: config.redisCluster?.nodes.map((n) => `${n.host}:${n.port}`).join(',') ?? '',
});

/** `Authorization` header value for Basic auth with an API email and key. */
export const basicAuth = (email: string, apiKey: string) =>
  `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;

/** Deletes the keys matching `pattern`: KEYS on one Redis, SCAN on each master of a cluster. */
export async function deleteKeys(redis: RedisClient, pattern: string): Promise<void> {
  if (!isCluster(redis)) {
    const keys = await redis.keys(pattern);
    // In slices: a benchmark leaves hundreds of thousands, more arguments than a call's stack holds.
    for (let i = 0; i < keys.length; i += 10_000) await redis.del(...keys.slice(i, i + 10_000));
    return;
  }
  for (const node of redis.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      // Keys of one node span many slots: delete each on its own (UNLINK is one-key safe).
      await Promise.all(keys.map((key) => redis.unlink(key)));
      cursor = next;
    } while (cursor !== '0');
  }
}
