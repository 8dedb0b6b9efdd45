/**
 * Read throughput with 0 and 1 streaming replica (not a test; as root: it writes cgroups and
 * runs PostgreSQL as the postgres user): `npx tsx bench/read-replicas.ts`.
 *
 * A PostgreSQL of its own and a streaming replica of it (`pg_basebackup -R`), each held to
 * BENCH_PG_CPU cores (default 0.15) by a cgroup v1 `cpu` group, so that the database and not the
 * api is what limits. One api process, uncapped, serves `GET /messages` narrowed to a channel, 50
 * messages, driven by autocannon (BENCH_CONNECTIONS, default 20) for BENCH_SECONDS (default 15)
 * per phase, alternating without and with `DATABASE_REPLICA_URLS` for BENCH_ROUNDS rounds
 * (default 2). The figure is requests per second with one replica over requests per second
 * without, within a round.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { CpuCaps } from './capped-cluster';
import {
  startPrivatePostgres,
  startPrivateReplica,
  type PrivateStore,
} from '../deploy/local/private-stores';
import { loadConfig } from '../libs/config/load-config';
import type { AppContext } from '../libs/core/context';
import { createDb } from '../libs/db/client';
import { applyMigrations } from '../libs/db/migrate';
import { createLogger } from '../libs/log/create-logger';
import { connectRedis } from '../libs/redis/connect';
import { makeRealm, makeUser } from '../test/factories';
import { freePort } from '../test/free-port';
import { deleteKeys } from '../test/harness';
import { postToChannel } from '../test/message-factories';
import { makeChannel } from '../test/channel-factories';
import { startTier } from '../test/multiprocess/processes';

const PG_CPU = Number(process.env.BENCH_PG_CPU ?? 0.15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MESSAGES = 500;

/** The postmaster's pid: the parent of any backend. */
async function postmasterPid(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  // Read while the backend lives: it exits with the connection.
  const stat = readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8');
  await client.end();
  return Number(stat.split(') ')[1].split(' ')[1]);
}

/** The postmaster and every process it has started, which new backends then join by forking. */
function serverPids(postmaster: number): number[] {
  const children = execFileSync('pgrep', ['-P', String(postmaster)]).toString();
  return [postmaster, ...children.split('\n').filter(Boolean).map(Number)];
}

async function main(): Promise<void> {
  const logs = mkdtempSync(path.join(tmpdir(), 'bench-read-replicas-'));
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  let primary: PrivateStore | undefined;
  let replica: PrivateStore | undefined;
  const caps = new CpuCaps({
    cpu: PG_CPU,
    periodUs: 100_000,
    prefix: `rr${randomBytes(2).toString('hex')}`,
    cappedShares: 8192,
    uncappedShares: 32768,
  });
  try {
    primary = await startPrivatePostgres(primaryPort, path.join(logs, 'primary.log'));
    const admin = new Client({ connectionString: `${primary.url}/postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE chat');
    await admin.end();
    const databaseUrl = `${primary.url}/chat`;
    await applyMigrations(databaseUrl);

    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: `bench:rr:${randomBytes(3).toString('hex')}:`,
      EXTERNAL_HOST: 'chat.bench',
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: 'warn',
    });
    const ctx: AppContext = {
      db: createDb(databaseUrl, { maxConnections: 5 }),
      redis: connectRedis(config),
      config,
      log: createLogger({ level: 'warn', format: 'json' }),
    };
    const org = await makeRealm(ctx, { stringId: '' });
    const reader = await makeUser(ctx, org.realm, { fullName: 'Rita Reader' });
    const channel = await makeChannel(ctx, org.realm, {
      name: 'history',
      subscribers: [org.owner.user, reader.user],
    });
    for (let i = 0; i < MESSAGES; i++) {
      await postToChannel(
        ctx,
        org.realm,
        org.owner.user,
        channel,
        `topic ${i % 10}`,
        `message ${i}`,
      );
    }
    await ctx.db.$disconnect();

    replica = await startPrivateReplica(primaryPort, replicaPort, path.join(logs, 'replica.log'));
    for (const [name, url] of [
      ['primary', databaseUrl],
      ['replica', `${replica.url}/chat`],
    ] as const) {
      const pids = serverPids(await postmasterPid(url));
      for (const pid of pids) caps.cap(name, pid);
    }
    caps.favour([process.pid], []);

    const narrow = encodeURIComponent(
      JSON.stringify([{ operator: 'channel', operand: 'history' }]),
    );
    const route = `/api/v1/messages?anchor=newest&num_before=50&num_after=0&narrow=${narrow}`;
    const auth = `Basic ${Buffer.from(`${reader.email}:${reader.apiKey}`).toString('base64')}`;
    const phases: { round: number; replicas: number; rps: number; p50: number; p99: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const replicas of [0, 1]) {
        const metricsPort = await freePort();
        const env = {
          METRICS_PORT: String(metricsPort),
          DATABASE_POOL_SIZE: '20',
          DATABASE_REPLICA_URLS: replicas ? `${replica.url}/chat` : '',
          RATE_LIMIT_API_REQUESTS: '100000000',
          // Queries wait for the capped database by design here; nothing is to be refused.
          OVERLOAD_DB_WAITING_LIMIT: '100000',
          OVERLOAD_MAX_IN_FLIGHT: '100000',
        };
        const api = await startTier('api', config, env);
        caps.favour([api.child.pid ?? process.pid], []);
        try {
          // Warm-up: connections opened, plans cached, the replica probed.
          await autocannon({
            url: `${api.url}${route}`,
            connections: CONNECTIONS,
            duration: 3,
            headers: { authorization: auth },
          });
          const result = await autocannon({
            url: `${api.url}${route}`,
            connections: CONNECTIONS,
            duration: SECONDS,
            headers: { authorization: auth },
          });
          if (result.non2xx > 0 || result.errors > 0) {
            throw new Error(
              `${result.non2xx} non-2xx answers and ${result.errors} errors: ${JSON.stringify(result.statusCodeStats)}`,
            );
          }
          phases.push({
            round,
            replicas,
            rps: result.requests.average,
            p50: result.latency.p50,
            p99: result.latency.p99,
          });
          // Where the reads went, and why a replica was skipped (the process's counters).
          const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
          const routing = metrics
            .split('\n')
            .filter((l) => /^chat_db_replica_(reads|skips)_total\{/.test(l))
            .map((l) => l.replace(/^chat_db_replica_/, ''));
          console.log(
            JSON.stringify({
              ...phases.at(-1),
              routing,
              throttled: caps.throttled(),
              load: loadavg()[0],
            }),
          );
        } finally {
          await api.stop();
        }
      }
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const [without, withReplica] = [0, 1].map(
        (n) => phases.find((p) => p.round === round && p.replicas === n)?.rps ?? NaN,
      );
      console.log(
        `round ${round}: ${without} -> ${withReplica} req/s, ${(withReplica / without).toFixed(2)}x`,
      );
    }
    await deleteKeys(ctx.redis, `${config.redisPrefix}*`);
    ctx.redis.disconnect();
  } finally {
    caps.release();
    await replica?.destroy();
    await primary?.destroy();
    rmSync(logs, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
