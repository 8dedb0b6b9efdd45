/**
 * Read throughput with 0 and 1 streaming replica (not a test; as root: it writes cgroups and
 * runs PostgreSQL as the postgres user): `npx tsx bench/read-replicas.ts`.
 *
 * A PostgreSQL of its own and a streaming replica of it (`pg_basebackup -R`), each held to
 * BENCH_PG_CPU cores (default 0.15) by a cgroup v1 `cpu` group, so that the database and not the
 * api is what limits. Two sets of BENCH_API_PROCS api processes (default 1), uncapped, one
 * without and one with `DATABASE_REPLICA_URLS`, serve `GET /messages` narrowed to a channel, 50
 * messages, driven by autocannon (BENCH_CONNECTIONS in all, default 20). Both are warmed for
 * BENCH_WARM_SECONDS (default 10), then loaded in turns for BENCH_SECONDS (default 10) each, for
 * BENCH_ROUNDS rounds (default 4) in ABBA order. The figure is requests per second with one
 * replica over requests per second without, per round and over all rounds.
 *
 * Each phase also prints what each server did per request, to tell who limits: its CPU (a
 * cgroup v1 `cpuacct` group beside each `cpu` group), its throttled periods (of 10 a second),
 * its statements (pg_stat_statements, reset before each phase) and the most frequent ones; the
 * CPU of the api processes and of this load generator; the machine's load.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { CpuCaps, postmasterOf } from './capped-cluster';
import { cpuMsOf, machineTicks } from './realtime-clients';
import {
  startPrivatePostgres,
  startPrivateReplica,
  type PrivateStore,
} from '../deploy/local/private-stores';
import { loadConfig } from '../libs/config/load-config';
import type { Config } from '../libs/core/config';
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
import { startTier, type Tier } from '../test/multiprocess/processes';

const PG_CPU = Number(process.env.BENCH_PG_CPU ?? 0.15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const API_PROCS = Number(process.env.BENCH_API_PROCS ?? 1);
const MESSAGES = 500;
const SERVERS = ['primary', 'replica'] as const;
type ServerName = (typeof SERVERS)[number];

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The postmaster and every process it has started, which new backends then join by forking. */
function serverPids(postmaster: number): number[] {
  const children = execFileSync('pgrep', ['-P', String(postmaster)]).toString();
  return [postmaster, ...children.split('\n').filter(Boolean).map(Number)];
}

/**
 * A cgroup v1 `cpuacct` group per capped server, holding the same processes as its `cpu` group
 * (the two controllers are separate hierarchies here): what each server used.
 */
class CpuAccounts {
  private readonly root = '/sys/fs/cgroup/cpuacct';
  private readonly dirs = new Map<string, string>();

  constructor(private readonly prefix: string) {}

  add(name: string, pids: number[]): void {
    const dir = path.join(this.root, `${this.prefix}-${name}`);
    if (!existsSync(dir)) mkdirSync(dir);
    this.dirs.set(name, dir);
    for (const pid of pids) writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
  }

  usageMs(name: string): number {
    const dir = this.dirs.get(name);
    return dir ? Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e6 : 0;
  }

  release(): void {
    for (const dir of this.dirs.values()) {
      for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
        if (pid) writeFileSync(path.join(this.root, 'cgroup.procs'), pid);
      }
      rmdirSync(dir);
    }
    this.dirs.clear();
  }
}

/** Throttled periods of a server's `cpu` group so far. */
function throttledPeriods(prefix: string, name: ServerName): number {
  const stat = readFileSync(`/sys/fs/cgroup/cpu/${prefix}-${name}/cpu.stat`, 'utf8');
  return Number(/nr_throttled (\d+)/.exec(stat)?.[1] ?? 0);
}

async function onServer<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

interface Statements {
  calls: number;
  /** Execution and planning time, ms. */
  ms: number;
  top: string[];
}

/** What pg_stat_statements counted on the server since its last reset. */
function statementsOf(url: string): Promise<Statements> {
  return onServer(url, async (client) => {
    const { rows } = await client.query<{ calls: string; ms: number; query: string }>(
      `SELECT calls, total_exec_time + total_plan_time AS ms, query FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY calls DESC`,
    );
    return {
      calls: rows.reduce((sum, r) => sum + Number(r.calls), 0),
      ms: rows.reduce((sum, r) => sum + r.ms, 0),
      top: rows.slice(0, 6).map((r) => `${r.calls} ${r.query.replace(/\s+/g, ' ').slice(0, 70)}`),
    };
  });
}

/** The primary, with pg_stat_statements loaded, its `chat` database migrated. */
async function startPrimary(port: number, logFile: string): Promise<PrivateStore> {
  const primary = await startPrivatePostgres(port, logFile);
  try {
    await onServer(`${primary.url}/postgres`, (client) =>
      client.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`),
    );
    await primary.stop();
    await primary.start();
    // Known once the library is loaded; the replica copies postgresql.auto.conf.
    await onServer(`${primary.url}/postgres`, async (client) => {
      await client.query('ALTER SYSTEM SET pg_stat_statements.track_planning = on');
      await client.query('SELECT pg_reload_conf()');
    });
  } catch (err) {
    await primary.destroy();
    throw err;
  }
  await onServer(`${primary.url}/postgres`, (client) => client.query('CREATE DATABASE chat'));
  await onServer(`${primary.url}/chat`, (client) =>
    client.query('CREATE EXTENSION pg_stat_statements'),
  );
  await applyMigrations(`${primary.url}/chat`);
  return primary;
}

/** An organization whose `history` channel holds MESSAGES messages; the reader's Basic auth. */
async function seed(config: Config): Promise<{ auth: string; ctx: AppContext }> {
  const ctx: AppContext = {
    db: createDb(config.databaseUrl, { maxConnections: 5 }),
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
    await postToChannel(ctx, org.realm, org.owner.user, channel, `topic ${i % 10}`, `message ${i}`);
  }
  await ctx.db.$disconnect();
  // The primary's autovacuum of the fresh rows runs now, not inside a measured phase.
  await onServer(config.databaseUrl, (client) => client.query('VACUUM ANALYZE'));
  return {
    auth: `Basic ${Buffer.from(`${reader.email}:${reader.apiKey}`).toString('base64')}`,
    ctx,
  };
}

const narrow = encodeURIComponent(JSON.stringify([{ operator: 'channel', operand: 'history' }]));
const ROUTE = `/api/v1/messages?anchor=newest&num_before=50&num_after=0&narrow=${narrow}`;

/** Every api process loaded at once, the connections split between them. */
async function load(
  apis: Tier[],
  auth: string,
  seconds: number,
): Promise<{ requests: number; p50: number; p99: number }> {
  const results = await Promise.all(
    apis.map((api) =>
      autocannon({
        url: `${api.url}${ROUTE}`,
        connections: Math.max(1, Math.round(CONNECTIONS / apis.length)),
        duration: seconds,
        headers: { authorization: auth },
      }),
    ),
  );
  for (const result of results) {
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(
        `${result.non2xx} non-2xx answers and ${result.errors} errors: ${JSON.stringify(result.statusCodeStats)}`,
      );
    }
  }
  return {
    requests: results.reduce((sum, r) => sum + r.requests.total, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
  };
}

interface Bench {
  config: Config;
  auth: string;
  urls: Record<ServerName, string>;
  caps: CpuCaps;
  accounts: CpuAccounts;
  prefix: string;
}

/** What the machine, the servers and the api processes have used so far. */
function meters(bench: Bench, apis: Tier[]) {
  return {
    at: Date.now(),
    machine: machineTicks(),
    self: process.cpuUsage(),
    api: apis.reduce((sum, api) => sum + cpuMsOf(api.child.pid ?? 0), 0),
    cpu: Object.fromEntries(SERVERS.map((s) => [s, bench.accounts.usageMs(s)])),
    throttled: Object.fromEntries(SERVERS.map((s) => [s, throttledPeriods(bench.prefix, s)])),
  } as const;
}

/** The api processes of one configuration: without (0) or with (1) the replica. */
interface Apis {
  replicas: number;
  tiers: Tier[];
  metricsPorts: number[];
}

async function startApis(bench: Bench, replicas: number): Promise<Apis> {
  const env = {
    DATABASE_POOL_SIZE: String(CONNECTIONS),
    DATABASE_REPLICA_URLS: replicas ? bench.urls.replica : '',
    RATE_LIMIT_API_REQUESTS: '100000000',
    // Queries wait for the capped database by design here; nothing is to be refused.
    OVERLOAD_DB_WAITING_LIMIT: '100000',
    OVERLOAD_MAX_IN_FLIGHT: '100000',
  };
  const apis: Apis = { replicas, tiers: [], metricsPorts: [] };
  for (let i = 0; i < API_PROCS; i++) {
    apis.metricsPorts.push(await freePort());
    const metrics = { METRICS_PORT: String(apis.metricsPorts[i]) };
    apis.tiers.push(await startTier('api', bench.config, { ...env, ...metrics }));
    bench.caps.favour([apis.tiers[i].child.pid ?? process.pid], []);
  }
  return apis;
}

/** One phase: the configuration's api processes loaded for `SECONDS`, and what it cost. */
async function phase(bench: Bench, apis: Apis) {
  for (const s of SERVERS) {
    await onServer(bench.urls[s], (c) => c.query('SELECT pg_stat_statements_reset()'));
  }
  const before = meters(bench, apis.tiers);
  const result = await load(apis.tiers, bench.auth, SECONDS);
  const after = meters(bench, apis.tiers);
  const statements = {
    primary: await statementsOf(bench.urls.primary),
    replica: await statementsOf(bench.urls.replica),
  };
  return {
    ...report(apis.replicas, result, before, after, statements),
    routing: await routing(apis.metricsPorts),
  };
}

/** Where the api processes sent their reads, and why a replica was skipped (since they started). */
async function routing(metricsPorts: number[]): Promise<string[]> {
  const lines: string[] = [];
  for (const port of metricsPorts) {
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const line of metrics.split('\n')) {
      if (/^chat_db_replica_(reads|skips)_total\{/.test(line)) {
        lines.push(line.replace(/^chat_db_replica_/, ''));
      }
    }
  }
  return lines;
}

function report(
  replicas: number,
  result: Awaited<ReturnType<typeof load>>,
  before: ReturnType<typeof meters>,
  after: ReturnType<typeof meters>,
  statements: Record<ServerName, Statements>,
) {
  const seconds = (after.at - before.at) / 1000;
  const n = result.requests;
  const perRequest = (ms: number) => round2(ms / n);
  const servers = Object.fromEntries(
    SERVERS.map((s) => [
      s,
      {
        cores: round2((after.cpu[s] - before.cpu[s]) / 1000 / seconds),
        cpuMsPerRequest: perRequest(after.cpu[s] - before.cpu[s]),
        throttledPeriods: after.throttled[s] - before.throttled[s],
        statementsPerRequest: round2(statements[s].calls / n),
        statementMsPerRequest: perRequest(statements[s].ms),
        top: statements[s].top,
      },
    ]),
  );
  const selfMs =
    (after.self.user + after.self.system - before.self.user - before.self.system) / 1000;
  const ticks = {
    busy: after.machine.busy - before.machine.busy,
    total: after.machine.total - before.machine.total,
  };
  // The figure means what it should only while each server that reads uses its whole quota; at
  // 0.3 CPU on the shared 2-core box the api (0.9-1.2 cores) stopped short of that.
  const reading = SERVERS.filter((s) => statements[s].calls > n);
  const postgresLimits = reading.every((s) => servers[s].cores >= 0.9 * PG_CPU);
  return {
    replicas,
    postgresLimits,
    rps: round2(n / seconds),
    p50: result.p50,
    p99: result.p99,
    servers,
    apiCores: round2((after.api - before.api) / 1000 / seconds),
    apiCpuMsPerRequest: perRequest(after.api - before.api),
    loadGeneratorCores: round2(selfMs / 1000 / seconds),
    machineBusyPercent: Math.round((100 * ticks.busy) / ticks.total),
    load: round2(loadavg()[0]),
  };
}

/**
 * Both configurations run side by side, each warmed once (connections opened, both servers'
 * caches filled, the replica probed), then loaded in turns, ABBA: the box's drift between two
 * phases a few seconds apart weighs on both.
 */
async function measure(bench: Bench): Promise<void> {
  const configurations: Apis[] = [];
  try {
    for (const replicas of [0, 1]) configurations.push(await startApis(bench, replicas));
    for (const apis of configurations) await load(apis.tiers, bench.auth, WARM_SECONDS);
    const ratios: string[] = [];
    const totals = [0, 0];
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? [0, 1] : [1, 0];
      const rps = [0, 0];
      for (const replicas of order) {
        const figures = await phase(bench, configurations[replicas]);
        rps[replicas] = figures.rps;
        totals[replicas] += figures.rps;
        console.log(JSON.stringify({ round, ...figures }));
      }
      ratios.push(
        `round ${round}: ${rps[0]} -> ${rps[1]} req/s, ${(rps[1] / rps[0]).toFixed(2)}x` +
          ` (load ${loadavg()[0].toFixed(1)})`,
      );
    }
    for (const line of ratios) console.log(line);
    console.log(`all rounds: ${(totals[1] / totals[0]).toFixed(2)}x`);
  } finally {
    for (const apis of configurations) for (const api of apis.tiers) await api.stop();
  }
}

async function main(): Promise<void> {
  const logs = mkdtempSync(path.join(tmpdir(), 'bench-read-replicas-'));
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  let primary: PrivateStore | undefined;
  let replica: PrivateStore | undefined;
  const prefix = `rr${randomBytes(2).toString('hex')}`;
  const caps = new CpuCaps({
    cpu: PG_CPU,
    periodUs: 100_000,
    prefix,
    cappedShares: 8192,
    uncappedShares: 32768,
  });
  const accounts = new CpuAccounts(prefix);
  try {
    primary = await startPrimary(primaryPort, path.join(logs, 'primary.log'));
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: `${primary.url}/chat`,
      REDIS_PREFIX: `bench:rr:${randomBytes(3).toString('hex')}:`,
      EXTERNAL_HOST: 'chat.bench',
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: 'warn',
    });
    const { auth, ctx } = await seed(config);
    replica = await startPrivateReplica(primaryPort, replicaPort, path.join(logs, 'replica.log'));
    const urls = { primary: config.databaseUrl, replica: `${replica.url}/chat` };
    for (const s of SERVERS) {
      const pids = serverPids(await postmasterOf(urls[s]));
      for (const pid of pids) caps.cap(s, pid);
      accounts.add(s, pids);
    }
    caps.favour([process.pid], []);
    await measure({ config, auth, urls, caps, accounts, prefix });
    await deleteKeys(ctx.redis, `${config.redisPrefix}*`);
    ctx.redis.disconnect();
  } finally {
    // The servers first: a postmaster forks while its processes are moved out of the groups.
    await replica?.destroy();
    await primary?.destroy();
    caps.release();
    accounts.release();
    rmSync(logs, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
