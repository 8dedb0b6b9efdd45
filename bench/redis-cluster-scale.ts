/**
 * Redis Cluster scale-out (not a test): `npx tsx bench/redis-cluster-scale.ts`, as root (it writes
 * cgroups).
 *
 * For each master count of RCS_MASTERS (1,3) it starts a Redis Cluster of that many masters on
 * loopback (no replicas), each master held to RCS_CPU of a core by
 * a cgroup v1 `cpu` group of its own (bench/capped-cluster.ts's `CpuCaps`, as bench/scale-out.ts
 * caps replicas), and the `npm run cluster` topology on it, uncapped: RCS_API api, RCS_EVENTS
 * events and one worker process behind nginx. Every Node process, nginx and this load generator
 * weigh more than anything else on the box (cpu.shares), so the masters' quotas are the limit.
 * It then searches for saturation: the highest rate whose step of RCS_STEP_SECONDS meets
 * send p99 <= 100 ms, delivery p99 <= 200 ms, nothing lost or delivered twice, no 5xx.
 *
 * Clients are bench/realtime-clients.ts's: RCS_CLIENTS members in channels of RCS_CHANNEL_SIZE,
 * each with a queue and a `GET /events` loop through nginx; messages go round-robin over the
 * channels from RCS_SENDERS senders. Each step reports the CPU every master used (from /proc), and
 * each master count ends with every node's busiest commands (`INFO commandstats` over the search):
 * where a hot slot (a partition's keys, a BullMQ queue, the wake-up channels) holds the rate.
 * RCS_PARTITIONS sets DISPATCH_PARTITIONS (8, the default). RCS_SLOTS says how the 16,384 slots
 * are split between the masters: `partitions` (the default) so that each holds as many
 * partitions' slots as the others (all of a partition's keys share its slot, keys.ts), `even` in
 * equal ranges, as `redis-cli --cluster create` does, whatever partitions they hold.
 *
 * RCS_BUILD_ROOT runs another checkout's build (its dist/, built beforehand), for the "before" of a
 * pair.
 *
 * Ports: Redis from RCS_REDIS_PORT (24500; cluster bus ports 10,000 above), nginx on RCS_PORT (22180) and the processes above it.
 * Prints one JSON line per step and the tables at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startCluster, type Cluster } from '../deploy/local/cluster';
import { keySlot } from '../libs/redis/key-slot';
import {
  CpuCaps,
  makeScaleWorld,
  owedDeliveries,
  postmasterOf,
  scaleClusterEnv,
  searchSaturation,
  startClients,
  type ScaleWorld,
} from './capped-cluster';
import {
  agent,
  cpuMsOf,
  machineTicks,
  newStats,
  sendMessage,
  type Client,
  type Stats,
} from './realtime-clients';
import { quantile as p, round, sleep, withScratchWorld, type BenchContext } from './scratch-world';

const env = process.env;
const MASTERS = (env.RCS_MASTERS ?? '1,3').split(',').map(Number);
const CPU = Number(env.RCS_CPU ?? 0.05);
/**
 * 20 ms periods, as bench/scale-out.ts (a quota spent early waits a shorter time for the next),
 * longer where the quota would fall under the kernel's least, 1 ms.
 */
const PERIOD_US = Number(env.RCS_CFS_PERIOD_US ?? Math.max(20_000, Math.ceil(1000 / CPU)));
const CLIENTS = Number(env.RCS_CLIENTS ?? 500);
const CHANNEL_SIZE = Number(env.RCS_CHANNEL_SIZE ?? 50);
const SENDERS = Number(env.RCS_SENDERS ?? 10);
const API = Number(env.RCS_API ?? 2);
const EVENTS = Number(env.RCS_EVENTS ?? 2);
const PARTITIONS = env.RCS_PARTITIONS ?? '8';
const STEP_SECONDS = Number(env.RCS_STEP_SECONDS ?? 15);
const GRACE_SECONDS = Number(env.RCS_GRACE_SECONDS ?? 5);
/** First rate tried, per master (messages per second). */
const START_RATE = Number(env.RCS_START_RATE ?? 4);
const MAX_STEPS = Number(env.RCS_MAX_STEPS ?? 7);
const REDIS_PORT = Number(env.RCS_REDIS_PORT ?? 24500);
const PORT = Number(env.RCS_PORT ?? 22180);
const ROOT = path.resolve(__dirname, '..');
const SLOTS = 16384;
const SLOT_SPLIT = (env.RCS_SLOTS ?? 'partitions') as 'partitions' | 'even';
const BOUNDS = { sendP99: 100, deliveryP99: 200 };

/** A Redis Cluster of masters only, started here. */
interface RedisNodes {
  ports: number[];
  pids: number[];
  /** `host:port,...`, as REDIS_CLUSTER_NODES takes them. */
  seeds: string;
  /** The first slot each master serves, in port order. */
  firstSlots: number[];
  stop(): Promise<void>;
}

/** Runs `command` on one node on a connection of its own. */
async function nodeCall(port: number, ...args: string[]): Promise<string> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // A node not listening yet fails the call; `until` asks again.
  client.on('error', () => undefined);
  try {
    return String(await client.call(args[0], ...args.slice(1)));
  } finally {
    client.disconnect();
  }
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`redis cluster: ${what} never happened`);
}

/**
 * `masters` redis-server processes with cluster mode on, each given its range of the slots
 * (`firstSlotOf`; CLUSTER ADDSLOTSRANGE: `redis-cli --cluster create` wants three masters) and
 * introduced to the first (CLUSTER MEET); ready once every node sees every slot served.
 */
async function startRedisCluster(masters: number, dir: string): Promise<RedisNodes> {
  const ports = Array.from({ length: masters }, (_, i) => REDIS_PORT + i);
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(
      children.map((c) =>
        c.exitCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve(),
      ),
    );
  };
  try {
    for (const port of ports) {
      const nodeDir = path.join(dir, String(port));
      rmSync(nodeDir, { recursive: true, force: true });
      mkdirSync(nodeDir, { recursive: true });
      // The process itself, not a daemon: its pid is the one the cgroup must hold.
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          nodeDir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          // A node alone never learns its address from a peer: CLUSTER SLOTS would name none.
          '--cluster-announce-ip',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--logfile',
          path.join(nodeDir, 'redis.log'),
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
    }
    for (const port of ports)
      await until(`${port} answering`, async () => (await nodeCall(port, 'PING')) === 'PONG');
    const firstSlots = ports.map((_, i) => firstSlotOf(i, masters));
    for (let i = 0; i < masters; i++) {
      const last = i + 1 < masters ? firstSlots[i + 1] - 1 : SLOTS - 1;
      await nodeCall(ports[i], 'CLUSTER', 'ADDSLOTSRANGE', String(firstSlots[i]), String(last));
      if (i > 0) await nodeCall(ports[i], 'CLUSTER', 'MEET', '127.0.0.1', String(ports[0]));
    }
    for (const port of ports) {
      await until(`${port} seeing the cluster whole`, async () => {
        const info = await nodeCall(port, 'CLUSTER', 'INFO');
        return (
          info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${masters}\r`)
        );
      });
    }
    return {
      ports,
      pids: children.map((c) => c.pid!),
      seeds: ports.map((port) => `127.0.0.1:${port}`).join(','),
      firstSlots,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The first slot of master i of n. Split by partitions: the partitions' slots in order, master i
 * starts halfway between the last slot of the partitions before its share and its first one.
 */
function firstSlotOf(i: number, masters: number): number {
  if (i === 0) return 0;
  if (SLOT_SPLIT === 'even') return Math.floor((i * SLOTS) / masters);
  const slots = Array.from({ length: Number(PARTITIONS) }, (_, p) => keySlot(`{p${p}}`)).sort(
    (a, b) => a - b,
  );
  const at = Math.floor((i * slots.length) / masters);
  return Math.floor((slots[at - 1] + slots[at]) / 2) + 1;
}

/** The master (index) serving a key. */
const masterOf = (nodes: RedisNodes, key: string) => {
  const slot = keySlot(key);
  let at = 0;
  while (at + 1 < nodes.firstSlots.length && nodes.firstSlots[at + 1] <= slot) at++;
  return at;
};

/** Calls and microseconds per command of one node since its statistics were reset. */
async function commandStats(
  port: number,
): Promise<{ name: string; calls: number; usec: number }[]> {
  const text = await nodeCall(port, 'INFO', 'commandstats');
  return [...text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)]
    .map(([, name, calls, usec]) => ({ name, calls: Number(calls), usec: Number(usec) }))
    .sort((a, b) => b.usec - a.usec);
}

interface StepResult {
  masters: number;
  rate: number;
  send: [number, number];
  delivery: [number, number];
  lost: number;
  duplicates: number;
  serverErrors: number;
  /** CPU each master used per message, in ms, and its share of a core over the step. */
  redisCpuMsPerMessage: number;
  masterCpuShares: number[];
  throttledPeriods: number;
  machineBusyPercent: number;
  loadAverage: number[];
  meets: boolean;
}

/** One master count's run: the steps of its saturation search. */
class StepRunner {
  private k = 0;

  constructor(
    private readonly run: {
      world: ScaleWorld;
      cluster: Cluster;
      nodes: RedisNodes;
      caps: CpuCaps;
      byUser: Map<number, Client>;
      stats: Stats;
      sentAt: Map<number, number>;
    },
  ) {}

  /** Sends `rate` messages per second for `seconds`, then waits for their deliveries. */
  async step(rate: number, seconds: number): Promise<StepResult> {
    const { world, cluster, stats, nodes, caps } = this.run;
    stats.sendMs.length = 0;
    stats.deliveryMs.length = 0;
    stats.duplicates = 0;
    stats.serverErrors = 0;
    const first = this.k + 1;
    const cpuBefore = nodes.pids.map(cpuMsOf);
    const throttledBefore = caps.throttled().periods;
    const machineBefore = machineTicks();
    const started = performance.now();
    const sends: Promise<void>[] = [];
    const accepted = new Set<number>();
    for (let i = 0; i < Math.round(rate * seconds); i++) {
      const wait = started + (i * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
      const k = ++this.k;
      sends.push(
        sendMessage({
          apiUrl: cluster.url,
          host: world.host,
          auth: world.senders[k % world.senders.length].auth,
          channelId: world.channels[k % world.channels.length].id,
          k,
          sentAt: this.run.sentAt,
          stats,
        }).then(
          () => void accepted.add(k),
          () => undefined,
        ),
      );
    }
    await Promise.allSettled(sends);
    const { byUser } = this.run;
    const { missing } = owedDeliveries({ world, byUser, accepted, first, last: this.k });
    const grace = performance.now() + GRACE_SECONDS * 1000;
    while (missing() > 0 && performance.now() < grace) await sleep(50);
    const elapsed = (performance.now() - started) / 1000;
    const cpuMs = nodes.pids.map((pid, i) => cpuMsOf(pid) - cpuBefore[i]);
    const machineAfter = machineTicks();
    const lost = missing();
    // A backlog must not spill into the next step: wait (bounded) for late deliveries.
    const drain = performance.now() + 30_000;
    while (missing() > 0 && performance.now() < drain) await sleep(100);
    const send: [number, number] = [p(stats.sendMs, 50), p(stats.sendMs, 99)];
    const delivery: [number, number] = [p(stats.deliveryMs, 50), p(stats.deliveryMs, 99)];
    return {
      masters: nodes.ports.length,
      rate,
      send,
      delivery,
      lost,
      duplicates: stats.duplicates,
      serverErrors: stats.serverErrors,
      redisCpuMsPerMessage: round(cpuMs.reduce((a, b) => a + b, 0) / Math.max(1, accepted.size), 2),
      masterCpuShares: cpuMs.map((ms) => round(ms / 1000 / elapsed, 3)),
      throttledPeriods: caps.throttled().periods - throttledBefore,
      machineBusyPercent: Math.round(
        ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) *
          100,
      ),
      loadAverage: loadavg().map((x) => round(x, 2)),
      meets:
        send[1] <= BOUNDS.sendP99 &&
        delivery[1] <= BOUNDS.deliveryP99 &&
        lost === 0 &&
        stats.duplicates === 0 &&
        stats.serverErrors === 0,
    };
  }
}

/** The organization: senders, and members in channels of CHANNEL_SIZE. */
async function makeWorld(ctx: BenchContext, databaseUrl: string): Promise<ScaleWorld> {
  // PostgreSQL weighs as much as the tiers when it is this benchmark's own (TEST_PG_URL).
  const ownPg = new URL(databaseUrl).port !== '' && new URL(databaseUrl).port !== '5432';
  const { world } = await makeScaleWorld(ctx, {
    senders: SENDERS,
    clients: CLIENTS,
    channelSize: CHANNEL_SIZE,
    serverPids: ownPg ? [await postmasterOf(databaseUrl)] : [],
  });
  return world;
}

/** Where the per-partition keys and the notification queue lie, by master. */
function keyPlacement(nodes: RedisNodes, prefix: string): string {
  const byMaster = nodes.ports.map(() => [] as string[]);
  for (let p = 0; p < Number(PARTITIONS); p++) byMaster[masterOf(nodes, `{p${p}}`)].push(`p${p}`);
  return (
    byMaster.map((parts, i) => `master ${i}: partitions ${parts.join(' ')}`).join('; ') +
    ` (prefix ${prefix})`
  );
}

/** Saturation with `masters` capped masters. */
async function searchMasters(masters: number): Promise<{ steps: StepResult[]; hot: string[] }> {
  const dir = path.join(ROOT, 'var/redis-cluster-scale', String(masters));
  const nodes = await startRedisCluster(masters, path.join(dir, 'redis'));
  const caps = new CpuCaps({
    cpu: CPU,
    periodUs: PERIOD_US,
    prefix: env.RCS_CGROUP_PREFIX ?? 'h48r-rcs',
    cappedShares: 8192,
    uncappedShares: 32768,
  });
  env.BENCH_REDIS_CLUSTER_NODES = nodes.seeds;
  try {
    nodes.pids.forEach((pid, i) => caps.cap(`redis-${i}`, pid));
    return await withScratchWorld({ DISPATCH_PARTITIONS: PARTITIONS }, async (ctx, config) => {
      const world = await makeWorld(ctx, config.databaseUrl);
      mkdirSync(dir, { recursive: true });
      const cluster = await startCluster({
        dir,
        basePort: PORT,
        env: {
          ...scaleClusterEnv(config),
          REDIS_CLUSTER_NODES: nodes.seeds,
          DISPATCH_PARTITIONS: PARTITIONS,
        },
        replicas: { api: API, events: EVENTS, worker: 1 },
        pollAffinity: true,
        // RCS_BUILD_ROOT: another checkout's build, e.g. a worktree of the commit before.
        root: env.RCS_BUILD_ROOT,
      });
      const stats = newStats();
      const sentAt = new Map<number, number>();
      let stopClients = () => {};
      try {
        caps.favour(
          [process.pid, ...cluster.processes.map((proc) => proc.child.pid!)],
          [cluster.nginx.pid!, ...world.serverPids],
        );
        const clients = await startClients({ url: cluster.url, world, stats, sentAt });
        stopClients = clients.stop;
        const run = new StepRunner({
          world,
          cluster,
          nodes,
          caps,
          byUser: clients.byUser,
          stats,
          sentAt,
        });
        await sleep(3000);
        await run.step(START_RATE * masters * 0.5, 10);
        await Promise.all(nodes.ports.map((port) => nodeCall(port, 'CONFIG', 'RESETSTAT')));
        const steps = await searchSaturation(
          { startRate: START_RATE * masters, maxSteps: MAX_STEPS },
          (rate) => run.step(rate, STEP_SECONDS),
        );
        const hot = [`${masters} masters: ${keyPlacement(nodes, config.redisPrefix)}`];
        for (let i = 0; i < nodes.ports.length; i++) {
          const byCommand = await commandStats(nodes.ports[i]);
          const total = byCommand.reduce((a, s) => a + s.usec, 0);
          const top = byCommand
            .slice(0, 6)
            .map((s) => `${s.name} ${Math.round((s.usec / total) * 100)}%`);
          hot.push(`master ${i}: ${round(total / 1e6, 2)} s in commands; ${top.join(', ')}`);
        }
        return { steps, hot };
      } finally {
        stopClients();
        await cluster.stop();
      }
    });
  } finally {
    delete env.BENCH_REDIS_CLUSTER_NODES;
    await nodes.stop();
    caps.release();
  }
}

function tables(steps: StepResult[], hot: string[]): string {
  const lines = [
    `${CPU} CPU per master (cfs period ${PERIOD_US} us), ${API} api + ${EVENTS} events + 1 worker uncapped, ` +
      `${CLIENTS} clients in channels of ${CHANNEL_SIZE}, ${SENDERS} senders, ` +
      `DISPATCH_PARTITIONS=${PARTITIONS}, slots split ${SLOT_SPLIT === 'even' ? 'evenly' : 'by partitions'}, ${STEP_SECONDS} s steps`,
    '',
    '| masters | rate (msg/s) | send p50 / p99 | delivery p50 / p99 | lost | dup | 5xx | Redis CPU ms / msg | CPU share of each master | throttled periods | machine busy % | load avg | meets |',
    '| -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | -: | :-: |',
  ];
  for (const r of steps) {
    lines.push(
      `| ${r.masters} | ${r.rate} | ${r.send.join(' / ')} | ${r.delivery.join(' / ')} | ${r.lost} | ${r.duplicates} | ${r.serverErrors} | ${r.redisCpuMsPerMessage} | ${r.masterCpuShares.join(' ')} | ${r.throttledPeriods} | ${r.machineBusyPercent} | ${r.loadAverage[0]} | ${r.meets ? 'yes' : 'no'} |`,
    );
  }
  const saturation = new Map<number, number>();
  for (const r of steps)
    if (r.meets) saturation.set(r.masters, Math.max(saturation.get(r.masters) ?? 0, r.rate));
  const one = saturation.get(MASTERS[0]);
  lines.push(
    '',
    `| masters | saturation (msg/s) | x ${MASTERS[0]} master(s) |`,
    '| -: | -: | -: |',
  );
  for (const n of MASTERS) {
    const rate = saturation.get(n);
    lines.push(`| ${n} | ${rate ?? 'none met'} | ${rate && one ? round(rate / one, 2) : ''} |`);
  }
  lines.push('', ...hot.map((line) => `- ${line}`));
  return lines.join('\n');
}

async function main() {
  const steps: StepResult[] = [];
  const hot: string[] = [];
  for (const masters of MASTERS) {
    const run = await searchMasters(masters);
    steps.push(...run.steps);
    hot.push(...run.hot);
  }
  agent.destroy();
  process.stdout.write(`\n${tables(steps, hot)}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
