import { ConfigError, loadConfig } from '../config';
import type { Config } from '../core/config';
import type { Db } from '../db/client';
import { closeSqlPool } from '../db/sql';
import type { AppContext } from '../core/context';
import { createLogger } from '../log';
import { connectRedis } from '../redis/connect';
import { flushWindowCounters } from '../redis/window-counter';

export interface RunningContext extends AppContext {
  close(): Promise<void>;
}

export function createAppContext(
  config: Config,
  options: { logLevel?: string; maxConnections?: number } = {},
): RunningContext {
  const log = createLogger({
    level: options.logLevel ?? config.logLevel,
    format: config.logFormat,
  });
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
        });
      }
      return db;
    },
    redis,
    config,
    log,
    async close() {
      await flushWindowCounters(redis);
      await db?.$disconnect();
      await closeSqlPool(ctx);
      redis.disconnect();
    },
  };
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
