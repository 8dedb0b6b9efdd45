/**
 * Scale-out (not a test): `npx tsx bench/scale-out.ts` (as root: it writes cgroups).
 *
 * Starts the `npm run cluster` topology (deploy/local/cluster.ts: real nginx running
 * deploy/nginx/chat.conf in front of api, events and worker processes) with 1, 2 and 4 replicas
 * of one tier (SCALE_TIER: `events` or `api`), each of them held to SCALE_CPU of a core by a
 * cgroup v1 `cpu` group of its own (`/sys/fs/cgroup/cpu/i29-scale-<tier>-<i>`, `cpu.cfs_quota_us`
 * against `cpu.cfs_period_us`). The other tiers, PostgreSQL, Redis, nginx and this load generator
 * are not capped. For each replica count it searches for saturation, the highest rate that meets
 * every bound over a step of SCALE_STEP_SECONDS:
 * - send (and, for the api tier, read) p50 <= 20 ms and p99 <= 100 ms;
 * - delivery p50 <= 50 ms and p99 <= 200 ms;
 * - nothing lost or delivered twice, no 5xx.
 * It raises the rate by a quarter while the bounds hold, then tries once between the last rate
 * that held and the first that did not.
 *
 * Clients behave as bench/realtime-load.ts's do (bench/realtime-clients.ts): SCALE_CLIENTS
 * accounts in channels of SCALE_CHANNEL_SIZE, each registering a queue and running a `GET /events`
 * loop through nginx, with messages sent through nginx to `POST /messages`.
 * - events tier: messages go round-robin over the channels; its measure is deliveries per second.
 * - api tier: each step sends `rate` messages and reads `rate` message windows (`GET /messages`,
 *   20 newest of a channel) per second, spread over SCALE_SENDERS senders; its measure is sends
 *   and reads per second. The events tier runs 2 uncapped replicas.
 *
 * Ports: nginx on SCALE_PORT (22080), the processes above it (see ClusterOptions.basePort).
 * Prints one JSON line per step and a table per tier at the end.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Client as PgClient } from 'pg';
import path from 'node:path';
import { startCluster, type Cluster, type Kind } from '../deploy/local/cluster';
import { makeChannel } from '../test/channel-factories';
import { makeRealm, makeUser } from '../test/factories';
import {
  agent,
  cpuMsOf,
  machineTicks,
  newStats,
  registerClients,
  request,
  sendMessage,
  startPolling,
  type Client,
  type Stats,
} from './realtime-clients';
import { bulkMembers, percentile, sleep, withScratchWorld } from './scratch';

type ScaledTier = 'events' | 'api';
const env = process.env;
const TIER = (env.SCALE_TIER ?? 'events') as ScaledTier;
const REPLICAS = (env.SCALE_REPLICAS ?? '1,2,4').split(',').map(Number);
const CPU = Number(env.SCALE_CPU ?? 0.1);
/**
 * 20 ms rather than the kernel's 100 ms: a replica that spends its quota early in a period waits
 * for the next, and with 100 ms periods those waits alone broke the 200 ms delivery bound.
 */
const PERIOD_US = Number(env.SCALE_CFS_PERIOD_US ?? 20_000);
const CLIENTS = Number(env.SCALE_CLIENTS ?? (TIER === 'events' ? 1000 : 100));
const CHANNEL_SIZE = Number(env.SCALE_CHANNEL_SIZE ?? (TIER === 'events' ? 50 : 10));
const SENDERS = Number(env.SCALE_SENDERS ?? 10);
const STEP_SECONDS = Number(env.SCALE_STEP_SECONDS ?? 15);
const GRACE_SECONDS = Number(env.SCALE_GRACE_SECONDS ?? 5);
/** First rate tried, per capped replica (messages per second). */
const START_RATE = Number(env.SCALE_START_RATE ?? (TIER === 'events' ? 3 : 10));
const MAX_STEPS = Number(env.SCALE_MAX_STEPS ?? 8);
const PORT = Number(env.SCALE_PORT ?? 22080);
const ROOT = path.resolve(__dirname, '..');
const CGROUP_ROOT = '/sys/fs/cgroup/cpu';
const CGROUP_PREFIX = env.SCALE_CGROUP_PREFIX ?? 'i29-scale';
/** cpu.shares of the capped groups, and of the group of the uncapped processes. */
const CAPPED_SHARES = Number(env.SCALE_CAPPED_SHARES ?? 8192);
const UNCAPPED_SHARES = Number(env.SCALE_UNCAPPED_SHARES ?? 32768);

const BOUNDS = { sendP50: 20, sendP99: 100, deliveryP50: 50, deliveryP99: 200 };
/**
 * Which bounds decide saturation. `tier` (the default): those of the tier under test, besides
 * nothing lost or duplicated and no 5xx: delivery for the events tier, send and read for the api
 * tier. On a loaded shared box a single send can take more than 20 ms whatever the rate, and
 * then no rate would meet the send bound for any tier. `all`: every bound, as on a quiet box.
 */
const DECIDING = (env.SCALE_BOUNDS ?? 'tier') as 'tier' | 'all';

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
class CpuCaps {
  private readonly groups: string[] = [];

  cap(name: string, pid: number): void {
    const dir = this.group(name, CAPPED_SHARES);
    writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(Math.round(CPU * PERIOD_US)));
    this.move(dir, [pid]);
  }

  /**
   * These processes, and those `withChildren` with every process they started, join the uncapped
   * group (this load generator is the parent of the whole cluster: its children stay where they are).
   */
  favour(pids: number[], withChildren: number[]): void {
    const group = this.group('uncapped', UNCAPPED_SHARES);
    this.move(group, [...pids, ...withChildren.flatMap(withDescendants)]);
  }

  private group(name: string, shares: number): string {
    const dir = path.join(CGROUP_ROOT, `${CGROUP_PREFIX}-${name}`);
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
async function ownServerPids(
  ctx: { redis: { info(section: string): Promise<string> } },
  databaseUrl: string,
): Promise<number[]> {
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
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  const { rows } = await pg.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  // The postmaster is the parent of every backend: new ones inherit its group.
  const postmaster = Number(
    readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8').split(') ')[1].split(' ')[1],
  );
  await pg.end();
  return [redisPid, postmaster];
}

interface World {
  host: string;
  /** Processes of the benchmark's own Redis and PostgreSQL, favoured like the uncapped tiers. */
  serverPids: number[];
  senders: { id: number; auth: string }[];
  members: { id: number; auth: string }[];
  channels: { id: number; members: number[] }[];
}

interface StepResult {
  tier: ScaledTier;
  replicas: number;
  rate: number;
  deliveriesPerSecond: number;
  send: [number, number];
  read: [number, number] | null;
  delivery: [number, number];
  lost: number;
  duplicates: number;
  serverErrors: number;
  cappedCpuMsPerDelivery: number;
  cappedCpuShare: number;
  throttledPeriods: number;
  loadAverage: number[];
  machineBusyPercent: number;
  /** Every bound held. */
  meetsAll: boolean;
  /** The deciding bounds held (SCALE_BOUNDS). */
  meets: boolean;
}

const round = (x: number | undefined, digits = 1) =>
  x === undefined ? NaN : Math.round(x * 10 ** digits) / 10 ** digits;
const p = (xs: number[], q: number) =>
  round(
    percentile(
      [...xs].sort((a, b) => a - b),
      q,
    ),
  );

async function main() {
  const results: StepResult[] = [];
  await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const senderUsers = await Promise.all(
      Array.from({ length: TIER === 'api' ? SENDERS : 1 }, (_, i) =>
        makeUser(ctx, org.realm, { fullName: `Sender ${i}` }),
      ),
    );
    const members = await bulkMembers(ctx, org.realm.id, CLIENTS, 'scale');
    const channels: World['channels'] = [];
    for (let i = 0; i < CLIENTS; i += CHANNEL_SIZE) {
      const group = members.slice(i, i + CHANNEL_SIZE);
      const channel = await makeChannel(ctx, org.realm, {
        name: `scale-${i / CHANNEL_SIZE}`,
        subscribers: senderUsers.map((s) => s.user),
      });
      await ctx.db.subscription.createMany({
        data: group.map((m) => ({
          userId: m.id,
          recipientId: channel.recipientId!,
          color: '#c2c2c2',
        })),
      });
      channels.push({ id: channel.id, members: group.map((m) => m.id) });
    }
    const world: World = {
      host: org.host,
      serverPids: await ownServerPids(ctx, config.databaseUrl),
      senders: senderUsers.map((s) => ({ id: s.user.id, auth: s.auth })),
      members,
      channels,
    };
    const clusterEnv = {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      REDIS_PREFIX: config.redisPrefix,
      EXTERNAL_HOST: config.externalHost,
      SECRET_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      BCRYPT_ROUNDS: '4',
      HEARTBEAT_SECONDS: '60',
      RATE_LIMIT_API_REQUESTS: '10000000',
    };
    for (const n of REPLICAS) {
      results.push(...(await searchSaturation(world, clusterEnv, n)));
    }
  });
  agent.destroy();
  process.stdout.write(`\n${table(results)}\n`);
}

async function searchSaturation(
  world: World,
  clusterEnv: Record<string, string>,
  n: number,
): Promise<StepResult[]> {
  const replicas: Record<Kind, number> =
    TIER === 'events' ? { api: 1, events: n, worker: 1 } : { api: n, events: 2, worker: 1 };
  const dir = path.join(ROOT, 'var/scale-out', `${TIER}-${n}`);
  mkdirSync(dir, { recursive: true });
  // SCALE_PROFILE=1: a CPU profile of every capped replica in var/scale-out/<tier>-<n>/profiles.
  const nodeArgs = env.SCALE_PROFILE
    ? { [TIER]: ['--cpu-prof', `--cpu-prof-dir=${path.join(dir, 'profiles')}`] }
    : {};
  const cluster = await startCluster({
    dir,
    basePort: PORT,
    env: clusterEnv,
    replicas,
    nodeArgs,
    // SCALE_BUILD_ROOT: another checkout's build and nginx file, e.g. /work/wt/base as "before".
    root: env.SCALE_BUILD_ROOT,
    // SCALE_AFFINITY=0: polls spread by queue id rather than sent to their partition's replica.
    pollAffinity: env.SCALE_AFFINITY !== '0',
  });
  const caps = new CpuCaps();
  // Ctrl-C: stop the cluster and remove the groups before leaving.
  const interrupted = () => {
    void cluster.stop().finally(() => {
      caps.release();
      process.exit(130);
    });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const capped = cluster.processes.filter((proc) => proc.kind === TIER);
  const results: StepResult[] = [];
  let stopPolling = () => {};
  try {
    caps.favour(
      [
        process.pid,
        ...cluster.processes.filter((proc) => proc.kind !== TIER).map((proc) => proc.child.pid!),
      ],
      [cluster.nginx.pid!, ...world.serverPids],
    );
    capped.forEach((proc) => caps.cap(proc.name, proc.child.pid!));
    for (const proc of capped) {
      const group = readFileSync(`/proc/${proc.child.pid}/cgroup`, 'utf8');
      if (!group.includes(`${CGROUP_PREFIX}-${proc.name}`)) {
        throw new Error(`${proc.name} is not in its cgroup: ${group}`);
      }
    }
    const stats = newStats();
    const sentAt = new Map<number, number>();
    const { clients } = await registerClients({
      apiUrl: cluster.url,
      host: world.host,
      members: world.members,
      concurrency: 20,
      eventsUrlOf: () => cluster.url,
      stats,
    });
    stopPolling = startPolling(clients, world.host, sentAt, stats);
    const byUser = new Map(clients.map((c) => [c.userId, c]));
    const run = new StepRunner(world, cluster, caps, capped, byUser, stats, sentAt);
    // Warm-up under the caps: JIT, connection pools, nginx keep-alive connections.
    await sleep(3000);
    await run.step(n, START_RATE * n * 0.5, 10);

    let rate = START_RATE * n;
    let good: number | null = null;
    let bad: number | null = null;
    for (let i = 0; i < MAX_STEPS; i++) {
      const result = await run.step(n, rate, STEP_SECONDS);
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
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    stopPolling();
    await cluster.stop();
    caps.release();
  }
  return results;
}

class StepRunner {
  private k = 0;

  constructor(
    private readonly world: World,
    private readonly cluster: Cluster,
    private readonly caps: CpuCaps,
    private readonly capped: { child: { pid?: number } }[],
    private readonly byUser: Map<number, Client>,
    private readonly stats: Stats,
    private readonly sentAt: Map<number, number>,
  ) {}

  /** Sends `rate` messages per second (and reads as many, for the api tier) for `seconds`. */
  async step(replicas: number, rate: number, seconds: number): Promise<StepResult> {
    const { world, cluster, stats } = this;
    stats.sendMs.length = 0;
    stats.deliveryMs.length = 0;
    stats.duplicates = 0;
    stats.serverErrors = 0;
    const readMs: number[] = [];
    const first = this.k + 1;
    const total = Math.round(rate * seconds);
    const pids = this.capped.map((c) => c.child.pid!);
    const cpuBefore = pids.map(cpuMsOf);
    const throttledBefore = this.caps.throttled();
    const machineBefore = machineTicks();
    const started = performance.now();
    const work: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const k = ++this.k;
      const channel = world.channels[k % world.channels.length];
      const sender = world.senders[k % world.senders.length];
      work.push(
        sendMessage({
          apiUrl: cluster.url,
          host: world.host,
          auth: sender.auth,
          channelId: channel.id,
          k,
          sentAt: this.sentAt,
          stats,
        }).catch(() => undefined),
      );
      if (TIER === 'api') work.push(this.read(channel.id, sender.auth, readMs));
    }
    await Promise.allSettled(work);
    const sendSeconds = (performance.now() - started) / 1000;
    const expected: [Client, number][] = [];
    for (let k = first; k <= this.k; k++) {
      for (const userId of world.channels[k % world.channels.length].members) {
        const client = this.byUser.get(userId);
        if (client) expected.push([client, k]);
      }
    }
    const missing = () => expected.filter(([c, k]) => !c.seen.has(k)).length;
    const grace = performance.now() + GRACE_SECONDS * 1000;
    while (missing() > 0 && performance.now() < grace) await sleep(50);
    const cpu = pids.map(cpuMsOf).reduce((a, b, i) => a + b - cpuBefore[i], 0);
    const throttled = this.caps.throttled();
    const machineAfter = machineTicks();
    const lost = missing();
    // A backlog must not spill into the next step: wait (bounded) for late deliveries.
    const drain = performance.now() + 30_000;
    while (missing() > 0 && performance.now() < drain) await sleep(100);
    const elapsed = (performance.now() - started) / 1000;
    const send: [number, number] = [p(stats.sendMs, 50), p(stats.sendMs, 99)];
    const read: [number, number] | null = TIER === 'api' ? [p(readMs, 50), p(readMs, 99)] : null;
    const delivery: [number, number] = [p(stats.deliveryMs, 50), p(stats.deliveryMs, 99)];
    const sendsMeet =
      send[0] <= BOUNDS.sendP50 &&
      send[1] <= BOUNDS.sendP99 &&
      (read === null || (read[0] <= BOUNDS.sendP50 && read[1] <= BOUNDS.sendP99));
    const deliveriesMeet = delivery[0] <= BOUNDS.deliveryP50 && delivery[1] <= BOUNDS.deliveryP99;
    const correct = lost === 0 && stats.duplicates === 0 && stats.serverErrors === 0;
    const meetsAll = sendsMeet && deliveriesMeet && correct;
    const meets =
      DECIDING === 'all' ? meetsAll : correct && (TIER === 'events' ? deliveriesMeet : sendsMeet);
    return {
      tier: TIER,
      replicas,
      rate,
      deliveriesPerSecond: round(expected.length / sendSeconds),
      send,
      read,
      delivery,
      lost,
      duplicates: stats.duplicates,
      serverErrors: stats.serverErrors,
      cappedCpuMsPerDelivery: round(cpu / Math.max(1, expected.length), 3),
      cappedCpuShare: round(cpu / 1000 / elapsed / pids.length, 2),
      throttledPeriods: throttled.periods - throttledBefore.periods,
      loadAverage: loadavg().map((x) => round(x, 2)),
      meetsAll,
      machineBusyPercent: Math.round(
        ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) *
          100,
      ),
      meets,
    };
  }

  private async read(channelId: number, auth: string, readMs: number[]): Promise<void> {
    const narrow = JSON.stringify([{ operator: 'channel', operand: channelId }]);
    const query = new URLSearchParams({
      anchor: 'newest',
      num_before: '20',
      num_after: '0',
      narrow,
    });
    const started = performance.now();
    try {
      const res = await request(
        `${this.cluster.url}/api/v1/messages?${query}`,
        'GET',
        auth,
        this.world.host,
      );
      readMs.push(performance.now() - started);
      if (res.status >= 500) this.stats.serverErrors++;
    } catch {
      this.stats.serverErrors++;
    }
  }
}

function table(results: StepResult[]): string {
  const lines = [
    `SCALE_TIER=${TIER}, ${CPU} CPU per capped replica (cfs period ${PERIOD_US} us), ` +
      `${CLIENTS} clients in channels of ${CHANNEL_SIZE}, ${STEP_SECONDS} s steps`,
    '',
    '| replicas | rate (msg/s) | deliveries/s | send p50 / p99 | read p50 / p99 | delivery p50 / p99 | lost | dup | 5xx | capped CPU ms / delivery | CPU share each | throttled periods | load avg | meets (' +
      DECIDING +
      ') | meets all |',
    '| -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | :-: | :-: |',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.replicas} | ${r.rate} | ${r.deliveriesPerSecond} | ${r.send.join(' / ')} | ${r.read?.join(' / ') ?? ''} | ${r.delivery.join(' / ')} | ${r.lost} | ${r.duplicates} | ${r.serverErrors} | ${r.cappedCpuMsPerDelivery} | ${r.cappedCpuShare} | ${r.throttledPeriods} | ${r.loadAverage[0]} | ${r.meets ? 'yes' : 'no'} | ${r.meetsAll ? 'yes' : 'no'} |`,
    );
  }
  const saturation = new Map<number, number>();
  for (const r of results) {
    if (r.meets) saturation.set(r.replicas, Math.max(saturation.get(r.replicas) ?? 0, r.rate));
  }
  const one = saturation.get(1);
  // Throughput the caps allow at the CPU per delivery measured: the capacity by CPU alone,
  // whatever the latency (a replica's share of one message is a burst its quota spreads out).
  const byCpu = new Map<number, number>();
  for (const r of results) {
    const most = (CPU * r.replicas * 1000) / r.cappedCpuMsPerDelivery;
    if (r.cappedCpuShare >= CPU * 0.5)
      byCpu.set(r.replicas, Math.max(byCpu.get(r.replicas) ?? 0, most));
  }
  const oneByCpu = byCpu.get(1);
  lines.push(
    '',
    '| replicas | saturation (msg/s) | x one replica | deliveries/s the caps allow at the CPU per delivery measured | x one replica |',
    '| -: | -: | -: | -: | -: |',
  );
  for (const n of REPLICAS) {
    const rate = saturation.get(n);
    const cpu = byCpu.get(n);
    lines.push(
      `| ${n} | ${rate ?? 'none met'} | ${rate && one ? round(rate / one, 2) : ''} | ${cpu ? Math.round(cpu) : ''} | ${cpu && oneByCpu ? round(cpu / oneByCpu, 2) : ''} |`,
    );
  }
  return lines.join('\n');
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
