/**
 * Chaos tests on the local cluster (deploy/local/cluster.ts), under load, judged from the
 * clients' side: `npm run chaos [-- scenario ...]` (default: every scenario). The load and the
 * judge are in chaos-load.ts, the worker scenarios in chaos-workers.ts. One JSON line per
 * scenario on stdout; docs/reliability.md records the last results. The cluster runs on a Redis
 * and a PostgreSQL of its own (private-stores.ts), created empty and deleted at the end, so the
 * scenarios can restart them.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { loadConfig } from '../../libs/config/load-config';
import { createRealm } from '../../libs/domain/realms/create-realm';
import { createUser } from '../../libs/domain/users/create-user';
import { Role } from '../../libs/domain/users/roles';
import { createAppContext } from '../../libs/runtime/create-app-context';
import { Chaos, sleep, type ScenarioResult, type User } from './chaos-load';
import {
  scheduledKill,
  webhookKill,
  type ScheduledResult,
  type WebhookResult,
} from './chaos-workers';
import { redisRestartEmptyJobs, type JobsResult } from './chaos-jobs';
import { startCluster } from './cluster';
import { startPrivatePostgres, startPrivateRedis, type PrivateRedis } from './private-stores';

/** CHAOS_BASE_PORT moves every port of the run (cluster, stores, bot, SMTP) by the same amount. */
const BASE_PORT = Number(process.env.CHAOS_BASE_PORT ?? 19580);
const REDIS_PORT = BASE_PORT + 40;
const POSTGRES_PORT = BASE_PORT + 50;
const JOBS_PORTS = { webhook: BASE_PORT + 80, smtp: BASE_PORT + 81 };
const USERS = 8;
const SECRET_KEY = 'Rz4Kq8Wm2Xv6Tn0Bp5Ly9Hd3Js7Fc1GmW2';
/** How long Redis or PostgreSQL stays down in the restart scenarios. */
const DOWN_MS = 5000;

interface Stores {
  redis: PrivateRedis;
  postgres: Awaited<ReturnType<typeof startPrivatePostgres>>;
}

type Scenario = (
  c: Chaos,
  stores: Stores,
) => Promise<ScenarioResult | ScheduledResult | WebhookResult | JobsResult>;

/** Redis down for DOWN_MS during sends; `empty`: it comes back without its data. */
const redisRestart =
  (scenario: string, empty: boolean): Scenario =>
  (c, { redis }) =>
    c.run(scenario, 25, async (notes) => {
      await sleep(6000);
      await redis.stop();
      if (empty) redis.wipe();
      notes.push(`redis stopped${empty ? ' and its append-only file deleted' : ''}`);
      await sleep(DOWN_MS);
      await redis.start();
      notes.push('redis started');
    });

const scenarios: Record<string, Scenario> = {
  'webhook-kill': webhookKill,
  'scheduled-kill': scheduledKill,
  /** kill -9 one events replica during sends; it comes back 8 s later. */
  'events-kill': (c) =>
    c.run('events-kill', 20, async (notes) => {
      await sleep(6000);
      notes.push(`events-1 killed: ${await c.cluster.kill('events-1', 'SIGKILL')}`);
      await sleep(8000);
      await c.cluster.restart('events-1');
      notes.push('events-1 restarted');
    }),
  /** Restart the events tier one replica at a time with SIGTERM. */
  'events-rolling': (c) =>
    c.run('events-rolling', 25, async (notes) => {
      await sleep(5000);
      for (const name of ['events-1', 'events-2']) {
        const started = Date.now();
        notes.push(`${name} SIGTERM: ${await c.cluster.kill(name, 'SIGTERM')}`);
        await c.cluster.restart(name);
        notes.push(`${name} back in ${Date.now() - started} ms`);
        await sleep(3000);
      }
    }),
  /** A clean restart of Redis with its append-only file, as an operator's Redis does. */
  'redis-restart': redisRestart('redis-restart', false),
  /** A restart that loses Redis's data (no persistence, or a replica promoted empty). */
  'redis-restart-empty': redisRestart('redis-restart-empty', true),
  /** Redis restarts empty while 1,000 scheduled messages, 200 webhook calls, 100 emails wait. */
  'redis-restart-empty-jobs': (c, { redis }) =>
    redisRestartEmptyJobs(c, redis, JOBS_PORTS, {
      scheduled: 1000,
      webhooks: 200,
      emails: 100,
      dueWithinS: 120,
    }),
  /** PostgreSQL's fast shutdown during sends, started again after DOWN_MS. */
  'postgres-restart': (c, { postgres }) =>
    c.run('postgres-restart', 25, async (notes) => {
      await sleep(6000);
      await postgres.stop();
      notes.push('postgres stopped (fast)');
      await sleep(DOWN_MS);
      await postgres.start();
      notes.push('postgres started');
    }),
};

async function setUp(c: Chaos, ctx: ReturnType<typeof createAppContext>) {
  const realm = await createRealm(ctx, {
    stringId: '',
    name: 'Chaos',
    owner: { email: 'owner@chaos.example', fullName: 'Owner', password: null },
  });
  for (let i = 0; i < USERS; i++) {
    const made = await createUser(ctx, {
      realm: realm.realm,
      email: `user${i}@chaos.example`,
      fullName: `User ${i}`,
      role: Role.MEMBER,
      password: null,
    });
    const auth = `Basic ${Buffer.from(`${made.user.email}:${made.apiKey}`).toString('base64')}`;
    c.users.push({ id: made.user.id, auth });
  }
  const sub = await c.api(
    '/users/me/subscriptions',
    c.users[0],
    c.form({
      subscriptions: JSON.stringify([{ name: 'chaos' }]),
      principals: JSON.stringify(c.users.map((u) => u.id)),
    }),
  );
  if (sub.status !== 200) throw new Error(`subscribe: ${await sub.text()}`);
  return (await ctx.db.stream.findFirstOrThrow({ where: { name: 'chaos' } })).id;
}

async function main() {
  const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(scenarios);
  for (const name of chosen) if (!scenarios[name]) throw new Error(`unknown scenario ${name}`);
  const dir = path.resolve(__dirname, '../../var/chaos');
  mkdirSync(dir, { recursive: true });
  const redis = await startPrivateRedis(REDIS_PORT, path.join(dir, 'redis.log'));
  const postgres = await startPrivatePostgres(POSTGRES_PORT, path.join(dir, 'postgres.log')).catch(
    async (err: unknown) => {
      await redis.destroy();
      throw err;
    },
  );
  const env = {
    DATABASE_URL: `${postgres.url}/chat_chaos`,
    REDIS_URL: redis.url,
    REDIS_PREFIX: 'chaos:',
    EXTERNAL_HOST: `127.0.0.1:${BASE_PORT}`,
    SECRET_KEY,
    HEARTBEAT_SECONDS: '10',
    // The slow bot of webhook-kill listens on loopback.
    OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // Requests of the test's own few users at 60 msg/s are not abuse.
    RATE_LIMIT_API_REQUESTS: '1000000',
    // redis-restart-empty-jobs: invitation emails to its SMTP server on loopback.
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(JOBS_PORTS.smtp),
    INVITES_DEFAULT_REALM_DAILY_MAX: '100000',
  };
  try {
    const cluster = await startCluster({ dir, basePort: BASE_PORT, env });
    const ctx = createAppContext(loadConfig({ ...env, LOG_LEVEL: 'warn' }), {
      logStream: 'stderr',
    });
    // A pool, not one connection: PostgreSQL's restart ends its connections, and a pool opens
    // new ones (an idle one's end is reported as an error event, which is expected here).
    const db = new Pool({ connectionString: env.DATABASE_URL, max: 2 });
    db.on('error', () => undefined);
    try {
      const users: User[] = [];
      const channelId = await setUp(new Chaos(cluster, users, 0, db), ctx);
      const chaos = new Chaos(cluster, users, channelId, db);
      for (const name of chosen) {
        const result = await scenarios[name](chaos, { redis, postgres });
        process.stdout.write(`${JSON.stringify(result)}\n`);
      }
    } finally {
      await db.end().catch(() => undefined);
      await cluster.stop();
      await ctx.close();
    }
  } finally {
    await postgres.destroy();
    await redis.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
