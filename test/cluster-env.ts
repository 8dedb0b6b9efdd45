import type { TestContext } from './harness';

/**
 * What a test's local cluster (deploy/local/cluster.ts) runs with: the test's own database, Redis
 * prefix, host and secret, and cheap password hashing.
 */
export const clusterEnv = (t: TestContext, extra: Record<string, string> = {}) => ({
  DATABASE_URL: t.config.databaseUrl,
  REDIS_URL: t.config.redisUrl,
  REDIS_PREFIX: t.config.redisPrefix,
  EXTERNAL_HOST: t.config.externalHost,
  SECRET_KEY: t.config.secretKey,
  BCRYPT_ROUNDS: '4',
  ...extra,
});
