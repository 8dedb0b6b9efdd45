/**
 * The machinery of bench/scale-out.ts shared by every tier it measures: the `npm run cluster`
 * topology with the replicas of one tier each held to a CPU quota by a cgroup v1 `cpu` group of
 * its own, the meter of what those replicas used over a step, and the search for saturation.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import {
  startCluster,
  type Cluster,
  type ClusterOptions,
  type ClusterProcess,
  type Kind,
} from '../deploy/local/cluster';
import {
  cpuMsOf,
  machineTicks,
  registerClients,
  startPolling,
  type Client,
  type Stats,
} from './realtime-clients';
import type { Config } from '../libs/core/config';
import { makeRealm, makeUser, type TestRealm } from '../test/factories';
import { bulkChannels, bulkMembers, round, type BenchContext } from './scratch-world';

const CGROUP_ROOT = '/sys/fs/cgroup/cpu';

export interface CapSettings {
  /** CPU per capped replica, in cores. */
  cpu: number;
  periodUs: number;
  /** Groups are `/sys/fs/cgroup/cpu/<prefix>-<process name>`. */
  prefix: string;
  /** cpu.shares of the capped groups, and of the group of the uncapped processes. */
  cappedShares: number;
  uncappedShares: number;
}

/** A process and every process it started (nginx's workers). */
function withDescendants(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    const children = `/proc/${found[i]}/task/${found[i]}/children`;
    if (!existsSync(children)) continue;
    for (const child of readFileSync(children, 'utf8').split(' ')) {
      if (child.trim()) found.push(Number(child));
    }
  }
  return found;
}

/**
 * One cgroup v1 `cpu` group per capped process, and one uncapped group for the rest of the
 * cluster and this load generator; `release` removes them. The box is shared, and a process of
 * the root group weighs 1024: the capped groups weigh 8 and the uncapped one 32 such processes,
 * so that a capped replica gets its whole quota while others load the cores, and the uncapped
 * tiers and the load generator are not what limits the rate.
 */
export class CpuCaps {
  private readonly groups: string[] = [];

  constructor(private readonly settings: CapSettings) {}

  cap(name: string, pid: number): void {
    const { periodUs, cpu, cappedShares } = this.settings;
    const dir = this.group(name, cappedShares);
    writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(periodUs));
    writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(Math.round(cpu * periodUs)));
    this.move(dir, [pid]);
  }

  /**
   * These processes, and those `withChildren` with every process they started, join the uncapped
   * group (this load generator is the parent of the whole cluster: its children stay where they are).
   */
  favour(pids: number[], withChildren: number[]): void {
    const group = this.group('uncapped', this.settings.uncappedShares);
    this.move(group, [...pids, ...withChildren.flatMap(withDescendants)]);
  }

  /** Whether the process is in its capped group. */
  holds(name: string, pid: number): boolean {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(`${this.settings.prefix}-${name}`);
  }

  private group(name: string, shares: number): string {
    const dir = path.join(CGROUP_ROOT, `${this.settings.prefix}-${name}`);
    if (!existsSync(dir)) mkdirSync(dir);
    writeFileSync(path.join(dir, 'cpu.shares'), String(shares));
    this.groups.push(dir);
    return dir;
  }

  private move(dir: string, pids: number[]): void {
    for (const pid of pids) writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
  }

  /** Throttled periods and time (ms) of every group so far. */
  throttled(): { periods: number; ms: number } {
    let periods = 0;
    let ns = 0;
    for (const dir of this.groups) {
      const stat = readFileSync(path.join(dir, 'cpu.stat'), 'utf8');
      periods += Number(/nr_throttled (\d+)/.exec(stat)?.[1] ?? 0);
      ns += Number(/throttled_time (\d+)/.exec(stat)?.[1] ?? 0);
    }
    return { periods, ms: ns / 1e6 };
  }

  release(): void {
    for (const dir of new Set(this.groups.splice(0))) {
      // Whatever is left in it (an exited process's group is empty) goes back to the root.
      for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
        if (pid) writeFileSync(path.join(CGROUP_ROOT, 'cgroup.procs'), pid);
      }
      rmdirSync(dir);
    }
  }
}

/**
 * The processes of the Redis and PostgreSQL servers the benchmark uses, when SCALE_OWN_SERVERS=1
 * says they are the benchmark's own (BENCH_REDIS_URL, TEST_PG_URL): they then join the uncapped
 * group. The machine's shared servers (ports 6379 and 5432) are never moved.
 */
export async function ownServerPids(
  ctx: { redis: { info(section: string): Promise<string> } },
  databaseUrl: string,
): Promise<number[]> {
  const env = process.env;
  if (!env.SCALE_OWN_SERVERS) return [];
  const redisUrl = env.BENCH_REDIS_URL ?? '';
  const pgPort = new URL(databaseUrl).port || '5432';
  const redisPort = redisUrl ? new URL(redisUrl).port || '6379' : '6379';
  if (pgPort === '5432' || redisPort === '6379') {
    throw new Error(
      'SCALE_OWN_SERVERS: BENCH_REDIS_URL and TEST_PG_URL must name your own servers',
    );
  }
  const redisPid = Number(/process_id:(\d+)/.exec(await ctx.redis.info('server'))?.[1]);
  return [redisPid, await postmasterOf(databaseUrl)];
}

/**
 * The PostgreSQL server's postmaster, the parent of every backend: a cgroup it joins holds the
 * backends started after.
 */
export async function postmasterOf(databaseUrl: string): Promise<number> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return Number(readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } finally {
    await pg.end();
  }
}

/** What the capped replicas used, and how busy the machine was, since the meter started. */
export interface Usage {
  /** CPU time of the capped replicas together, in ms. */
  cpuMs: number;
  throttledPeriods: number;
  machineBusyPercent: number;
  loadAverage: number[];
}

export interface CappedCluster {
  cluster: Cluster;
  /** The replicas of the tier under test, each in its own capped group. */
  capped: ClusterProcess[];
  /** Starts measuring; the function returned reads what was used since. */
  meter: () => () => Usage;
}

/**
 * Starts the cluster, caps every replica of `tier`, puts the rest of the cluster, nginx, this
 * load generator and `favoured` (with their children: the benchmark's own servers) in the
 * uncapped group, and runs `use`. The cluster is stopped and the groups removed afterwards, on
 * Ctrl-C too.
 */
export async function withCappedCluster<T>(
  options: { cluster: ClusterOptions; tier: Kind; caps: CapSettings; favoured: number[] },
  use: (capped: CappedCluster) => Promise<T>,
): Promise<T> {
  const { tier } = options;
  const cluster = await startCluster(options.cluster);
  const caps = new CpuCaps(options.caps);
  const interrupted = () => {
    void cluster.stop().finally(() => {
      caps.release();
      process.exit(130);
    });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const capped = cluster.processes.filter((proc) => proc.kind === tier);
  try {
    caps.favour(
      [
        process.pid,
        ...cluster.processes.filter((proc) => proc.kind !== tier).map((proc) => proc.child.pid!),
      ],
      [cluster.nginx.pid!, ...options.favoured],
    );
    for (const proc of capped) {
      caps.cap(proc.name, proc.child.pid!);
      if (!caps.holds(proc.name, proc.child.pid!)) {
        throw new Error(`${proc.name} is not in its cgroup`);
      }
    }
    const pids = capped.map((proc) => proc.child.pid!);
    const meter = () => {
      const cpuBefore = pids.map(cpuMsOf);
      const throttledBefore = caps.throttled();
      const machineBefore = machineTicks();
      return (): Usage => {
        const machineAfter = machineTicks();
        return {
          cpuMs: pids.map(cpuMsOf).reduce((a, b, i) => a + b - cpuBefore[i], 0),
          throttledPeriods: caps.throttled().periods - throttledBefore.periods,
          machineBusyPercent: Math.round(
            ((machineAfter.busy - machineBefore.busy) /
              (machineAfter.total - machineBefore.total)) *
              100,
          ),
          loadAverage: loadavg().map((x) => round(x, 2)),
        };
      };
    };
    return await use({ cluster, capped, meter });
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cluster.stop();
    caps.release();
  }
}

/**
 * Saturation: the highest rate whose step meets the bounds. Starts at `startRate`, raises the
 * rate by a quarter while the bounds hold (lowers it by a third while they never held), then
 * tries once between the last rate that held and the first that did not. Prints each step as a
 * JSON line.
 */
export async function searchSaturation<R extends { meets: boolean }>(
  options: { startRate: number; maxSteps: number },
  step: (rate: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let rate = options.startRate;
  let good: number | null = null;
  let bad: number | null = null;
  for (let i = 0; i < options.maxSteps; i++) {
    const result = await step(rate);
    results.push(result);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (result.meets) good = Math.max(good ?? 0, rate);
    else bad = Math.min(bad ?? Infinity, rate);
    if (bad === null) rate = round(rate * 1.25);
    else if (good === null) rate = round(rate / 1.5);
    else {
      const between = round((good + bad) / 2);
      if (between === good || between === bad || bad / good < 1.1) break;
      rate = between;
    }
  }
  return results;
}

/** A step as the saturation table reads it. */
export interface RatedStep {
  replicas: number;
  rate: number;
  meets: boolean;
  /** CPU of the capped replicas per unit of work (a delivery, a call), in ms. */
  cappedCpuMsPerItem: number;
  /** Mean CPU share of each capped replica over the step. */
  cappedCpuShare: number;
}

/**
 * Per replica count: the saturation and its ratio to one replica's, and the throughput the caps
 * allow at the CPU per item measured (the capacity by CPU alone, whatever the latency: a
 * replica's share of a burst is spread out by its quota), from the steps where the replicas used
 * at least half their quota. `unit` names the rate (msg/s), `items` the work (deliveries/s).
 */
export function saturationTable(
  results: RatedStep[],
  options: { replicaCounts: number[]; cpu: number; unit: string; items: string },
): string[] {
  const { replicaCounts, cpu, unit, items } = options;
  const saturation = new Map<number, number>();
  for (const r of results) {
    if (r.meets) saturation.set(r.replicas, Math.max(saturation.get(r.replicas) ?? 0, r.rate));
  }
  const one = saturation.get(1);
  const byCpu = new Map<number, number>();
  for (const r of results) {
    const most = (cpu * r.replicas * 1000) / r.cappedCpuMsPerItem;
    if (r.cappedCpuShare >= cpu * 0.5) {
      byCpu.set(r.replicas, Math.max(byCpu.get(r.replicas) ?? 0, most));
    }
  }
  const oneByCpu = byCpu.get(1);
  const lines = [
    `| replicas | saturation (${unit}) | x one replica | ${items} the caps allow at the CPU per item measured | x one replica |`,
    '| -: | -: | -: | -: | -: |',
  ];
  for (const n of replicaCounts) {
    const rate = saturation.get(n);
    const most = byCpu.get(n);
    lines.push(
      `| ${n} | ${rate ?? 'none met'} | ${rate && one ? round(rate / one, 2) : ''} | ${most ? Math.round(most) : ''} | ${most && oneByCpu ? round(most / oneByCpu, 2) : ''} |`,
    );
  }
  return lines;
}

/** The organization the clients of a scale-out run belong to. */
export interface ScaleWorld {
  host: string;
  /** Processes of the benchmark's own Redis and PostgreSQL, favoured like the uncapped tiers. */
  serverPids: number[];
  senders: { id: number; auth: string }[];
  members: { id: number; auth: string }[];
  channels: { id: number; members: number[] }[];
}

/**
 * A scale bench's organization: `senders` senders, each subscribed to every channel, and
 * `clients` members in channels of `channelSize`. `serverPids` are the bench's own stores.
 */
export async function makeScaleWorld(
  ctx: BenchContext,
  options: { senders: number; clients: number; channelSize: number; serverPids: number[] },
): Promise<{ org: TestRealm; world: ScaleWorld }> {
  const org = await makeRealm(ctx);
  const senders = await Promise.all(
    Array.from({ length: options.senders }, (_, i) =>
      makeUser(ctx, org.realm, { fullName: `Sender ${i}` }),
    ),
  );
  const members = await bulkMembers(ctx, org.realm.id, options.clients, 'scale');
  const senderUsers = senders.map((s) => s.user);
  const channels = await bulkChannels(ctx, org.realm, senderUsers, members, options.channelSize);
  const world: ScaleWorld = {
    host: org.host,
    serverPids: options.serverPids,
    senders: senders.map((s) => ({ id: s.user.id, auth: s.auth })),
    members,
    channels: channels.map((c) => ({ id: c.id, members: c.members.map((m) => m.id) })),
  };
  return { org, world };
}

/** The environment every process of a scale bench's cluster shares: the scratch world's stores. */
export function scaleClusterEnv(config: Config): Record<string, string> {
  return {
    DATABASE_URL: config.databaseUrl,
    REDIS_PREFIX: config.redisPrefix,
    EXTERNAL_HOST: config.externalHost,
    SECRET_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    BCRYPT_ROUNDS: '4',
    HEARTBEAT_SECONDS: '60',
    RATE_LIMIT_API_REQUESTS: '10000000',
  };
}

/**
 * The deliveries the accepted sends numbered `first` to `last` owe (one to each client among
 * their channel's members), and a count of those not seen yet.
 */
export function owedDeliveries(options: {
  world: ScaleWorld;
  byUser: Map<number, Client>;
  accepted: Set<number>;
  first: number;
  last: number;
}): { owed: number; missing: () => number } {
  const { world, byUser, accepted, first, last } = options;
  const expected: [Client, number][] = [];
  for (let k = first; k <= last; k++) {
    if (!accepted.has(k)) continue;
    for (const userId of world.channels[k % world.channels.length].members) {
      const client = byUser.get(userId);
      if (client) expected.push([client, k]);
    }
  }
  return {
    owed: expected.length,
    missing: () => expected.filter(([c, k]) => !c.seen.has(k)).length,
  };
}

/**
 * Registers a queue for every member through nginx and starts its `GET /events` loop
 * (bench/realtime-clients.ts: a message seen counts as a delivery of message k, `record`ed
 * against `sentAt`). Returns the clients by user id and the function that stops the loops.
 */
export async function startClients(options: {
  url: string;
  world: ScaleWorld;
  stats: Stats;
  sentAt: Map<number, number>;
  record?: (k: number, ms: number) => void;
}): Promise<{ byUser: Map<number, Client>; stop: () => void }> {
  const { url, world, stats, sentAt, record } = options;
  const { clients } = await registerClients({
    apiUrl: url,
    host: world.host,
    members: world.members,
    concurrency: 20,
    eventsUrlOf: () => url,
    stats,
  });
  const stop = startPolling(clients, world.host, sentAt, stats, record);
  return { byUser: new Map(clients.map((c) => [c.userId, c])), stop };
}
