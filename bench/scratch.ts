import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../libs/config';
import { applyMigrations } from '../libs/db/migrate';
import { createAppContext } from '../libs/runtime/context';
import { databaseUrl, dropDatabase, withAdminClient } from '../test/databases';

export type BenchContext = ReturnType<typeof createAppContext>;

/**
 * Runs a benchmark against a scratch database (migrated from scratch) and a scratch Redis prefix,
 * both removed afterwards whatever happens.
 */
export async function withScratchWorld<T>(
  env: Record<string, string>,
  run: (ctx: BenchContext, config: Config) => Promise<T>,
): Promise<T> {
  const suffix = randomBytes(4).toString('hex');
  const dbName = `chat_bench_${suffix}`;
  await withAdminClient((c) => c.query(`CREATE DATABASE "${dbName}"`));
  await applyMigrations(databaseUrl(dbName));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl(dbName),
    REDIS_PREFIX: `bench:${suffix}:`,
    EXTERNAL_HOST: 'chat.test',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: 'error',
    ...env,
  });
  const ctx = createAppContext(config, { maxConnections: 10 });
  try {
    return await run(ctx, config);
  } finally {
    const keys = await ctx.redis.keys(`${config.redisPrefix}*`);
    for (let i = 0; i < keys.length; i += 1000) await ctx.redis.del(...keys.slice(i, i + 1000));
    await ctx.close();
    await withAdminClient((c) => dropDatabase(c, dbName));
  }
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
