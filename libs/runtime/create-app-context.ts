import { ConfigError, loadConfig } from '../config/load-config';
import type { Config } from '../core/config';
import type { Db } from '../db/client';
import { closeSqlPool } from '../db/sql';
import { closeReadReplicas } from '../db/read-replicas';
import { flushPublishedMarks } from '../events/outbox';
import type { AppContext } from '../core/context';
import { createLogger } from '../log/create-logger';
import { logNodeWarnings } from '../log/node-warnings';
import { closeJobQueues } from '../jobs/queues';
import { connectRedis, redisConnected } from '../redis/connect';
import { flushWindowCounters } from '../redis/window-counter';
import { watchStores } from './store-watch';

export interface RunningContext extends AppContext {
  close(): Promise<void>;
}

export function createAppContext(
  config: Config,
  options: {
    logLevel?: string;
    maxConnections?: number;
    /** Log each PostgreSQL or Redis outage once (a serving tier; see `watchStores`). */
    watchStores?: boolean;
    /** stdout (the tiers); stderr for the CLI and tools whose stdout is their answer. */
    logStream?: 'stdout' | 'stderr';
  } = {},
): RunningContext {
  const log = createLogger({
    level: options.logLevel ?? config.logLevel,
    format: config.logFormat,
    stream: options.logStream,
  });
  // Node's own warnings (deprecations, MaxListeners...) become log lines like any other.
  logNodeWarnings(log);
  const redis = connectRedis(config, { log });
  // Prisma is loaded and its client built on first use: an events process that serves polls
  // never needs it (see `sqlPool`), and it costs a process over 100 MB once used.
  let db: Db | undefined;
  const ctx: RunningContext = {
    get db(): Db {
      if (!db) {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load in CommonJS
        const { createDb } = require('../db/client') as typeof import('../db/client');
        db = createDb(config.databaseUrl, {
          maxConnections: options.maxConnections ?? config.databasePoolSize,
          idleSeconds: config.databaseIdleSeconds,
        });
      }
      return db;
    },
    redis,
    config,
    log,
    async close() {
      stopWatching();
      try {
        await flushPublishedMarks(ctx);
        if (redisConnected(redis)) await flushWindowCounters(redis);
      } finally {
        await db?.$disconnect();
        await closeSqlPool(ctx);
        await closeReadReplicas(ctx);
        await closeJobQueues(redis);
        redis.disconnect();
      }
    },
  };
  const stopWatching = options.watchStores ? watchStores(ctx) : () => undefined;
  return ctx;
}

/** Reads the environment once; on a bad value prints every problem and exits. */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
