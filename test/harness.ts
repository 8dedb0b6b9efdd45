import type { Express } from 'express';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createApiApp } from '../apps/api/app';
import { loadConfig, type Config } from '../libs/config';
import { createDb } from '../libs/db/client';
import type { AppContext } from '../libs/domain/context';
import { createLogger } from '../libs/log';
import {
  databaseUrl,
  dropDatabase,
  runId,
  templateDb,
  TEST_DB_PREFIX,
  withAdminClient,
} from './databases';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

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
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(databaseName),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `test:${suffix}:`,
    EXTERNAL_HOST: 'chat.test',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    LOG_FORMAT: 'pretty',
    // Tests make many requests as one user; the limiter's own test sets small limits.
    RATE_LIMIT_API_REQUESTS: '1000000',
    RATE_LIMIT_AUTH_ATTEMPTS: '1000',
    ...overrides,
  });
  const db = createDb(config.databaseUrl, { maxConnections: 5 });
  const redis = new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 });
  const log = createLogger({ level: config.logLevel, format: config.logFormat });
  const ctx: AppContext = { db, redis, config, log };
  return {
    ...ctx,
    app: createApiApp(ctx),
    databaseName,
    async close() {
      await db.$disconnect();
      const keys = await redis.keys(`${config.redisPrefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await withAdminClient((client) => dropDatabase(client, databaseName));
    },
  };
}

/** `Authorization` header value for Basic auth with an API email and key. */
export const basicAuth = (email: string, apiKey: string) =>
  `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
