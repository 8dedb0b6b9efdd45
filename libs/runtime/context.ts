import { ConfigError, loadConfig } from '../config';
import type { Config } from '../core/config';
import { createDb } from '../db/client';
import type { AppContext } from '../core/context';
import { createLogger } from '../log';
import { connectRedis } from '../redis/connect';

export interface RunningContext extends AppContext {
  close(): Promise<void>;
}

export function createAppContext(
  config: Config,
  options: { logLevel?: string; maxConnections?: number } = {},
): RunningContext {
  const db = createDb(config.databaseUrl, {
    maxConnections: options.maxConnections ?? config.databasePoolSize,
  });
  const log = createLogger({
    level: options.logLevel ?? config.logLevel,
    format: config.logFormat,
  });
  const redis = connectRedis(config, { log });
  return {
    db,
    redis,
    config,
    log,
    async close() {
      await db.$disconnect();
      redis.disconnect();
    },
  };
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
