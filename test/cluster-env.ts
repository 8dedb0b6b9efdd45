import type { TestContext } from './harness';

/**
 * The cluster runs with NODE_ENV=production, which refuses a placeholder or short SECRET_KEY:
 * its tests' contexts take this one.
 */
export const CLUSTER_SECRET_KEY = 'k8Qw2Zr5Tn1Lp7Vx3Hs9Jd4Fb6Gm0YcR2';

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

/** A request to the API through a local cluster's one URL (given late: clusters start in beforeAll). */
export const clusterApi =
  (url: () => string) =>
  (path: string, auth: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${url()}/api/v1${path}`, {
      ...init,
      headers: { Authorization: auth, ...(init.headers as Record<string, string>) },
    });

/** A form-encoded POST, as Zulip's clients send. */
export const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
