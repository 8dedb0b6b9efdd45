/**
 * Sustained real-time load (not a test): `npx tsx bench/realtime-load.ts`.
 *
 * Starts one `api` process and BENCH_EVENTS_PROCS `events` processes against a scratch database,
 * creates BENCH_CLIENTS accounts in channels of BENCH_CHANNEL_SIZE members, and has every account
 * behave as a client does over HTTP: Basic auth, `POST /register`, then a `GET /events` loop
 * (clients are spread over the events processes, as a load balancer would). Then it sends
 * BENCH_RATE messages per second, round-robin over the channels, through
 * `POST /messages`, for BENCH_SECONDS, and measures:
 * - send latency (request -> response of `POST /messages`);
 * - delivery latency (start of the send -> the event in each member's poll response);
 * - events lost (expected deliveries never seen within BENCH_GRACE_SECONDS after the last send),
 *   delivered twice, out of order (event ids must increase per queue), and 5xx responses;
 * - RSS of every server process at the end.
 * It also reports how long the backlog left by account set-up took to drain (first probe message
 * delivered).
 */
import type { TestRealm } from '../test/factories';
import { makeRealm, makeUser } from '../test/factories';
import { makeChannel } from '../test/channel-factories';
import { startTier, type Tier } from '../test/multiprocess/processes';
import {
  agent,
  cpuMsOf,
  machineTicks,
  newStats,
  registerClients,
  rssMbOf,
  sendMessage,
  startPolling,
} from './realtime-clients';
import { bulkMembers, percentile, sleep, withScratchWorld } from './scratch';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const CHANNEL_SIZE = Number(process.env.BENCH_CHANNEL_SIZE ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const GRACE_SECONDS = Number(process.env.BENCH_GRACE_SECONDS ?? 10);
const EVENTS_PROCS = Number(process.env.BENCH_EVENTS_PROCS ?? 1);
const REGISTER_CONCURRENCY = Number(process.env.BENCH_REGISTER_CONCURRENCY ?? 20);

const cpuMs = (tier: Tier) => cpuMsOf(tier.child.pid!);
const rssMb = (tier: Tier) => rssMbOf(tier.child.pid!);

async function main() {
  const report = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const owner = await makeUser(ctx, org.realm, { fullName: 'Owner' });
    const members = await bulkMembers(ctx, org.realm.id, CLIENTS, 'load');
    const channels: { id: number; members: typeof members }[] = [];
    for (let i = 0; i < CLIENTS; i += CHANNEL_SIZE) {
      const group = members.slice(i, i + CHANNEL_SIZE);
      const channel = await makeChannel(ctx, org.realm, {
        name: `load-${i / CHANNEL_SIZE}`,
        subscribers: [owner.user],
      });
      await ctx.db.subscription.createMany({
        data: group.map((m) => ({
          userId: m.id,
          recipientId: channel.recipientId!,
          color: '#c2c2c2',
        })),
      });
      channels.push({ id: channel.id, members: group });
    }

    const env = { HEARTBEAT_SECONDS: '60', EVENTS_AUTH_CACHE_SECONDS: '10' };
    const api = await startTier('api', config, env);
    const events: Tier[] = [];
    for (let i = 0; i < EVENTS_PROCS; i++) events.push(await startTier('events', config, env));
    try {
      return await run(org, owner.auth, api, events, members, channels);
    } finally {
      await Promise.all([api.stop(), ...events.map((e) => e.stop())]);
    }
  });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  agent.destroy();
}

async function run(
  org: TestRealm,
  senderAuth: string,
  api: Tier,
  events: Tier[],
  members: { id: number; auth: string }[],
  channels: { id: number; members: { id: number; auth: string }[] }[],
) {
  const stats = newStats();
  const sentAt = new Map<number, number>();

  const registerStart = performance.now();
  const { clients, registerMs } = await registerClients({
    apiUrl: api.url,
    host: org.host,
    members,
    concurrency: REGISTER_CONCURRENCY,
    eventsUrlOf: (i) => events[i % events.length].url,
    stats,
  });
  const registerSeconds = (performance.now() - registerStart) / 1000;
  const stopPolling = startPolling(clients, org.host, sentAt, stats);

  const waiting = async () => {
    let n = 0;
    for (const e of events) {
      n += ((await (await fetch(`${e.url}/health`)).json()) as { polls: number }).polls;
    }
    return n;
  };
  const settleDeadline = Date.now() + 120_000;
  while ((await waiting()) < clients.length && Date.now() < settleDeadline) await sleep(100);

  const send = (k: number, channel: (typeof channels)[number]) =>
    sendMessage({
      apiUrl: api.url,
      host: org.host,
      auth: senderAuth,
      channelId: channel.id,
      k,
      sentAt,
      stats,
    });

  // Probe: how long until a message gets through the backlog that account set-up left behind.
  const probeStart = performance.now();
  await send(0, channels[0]);
  const probeClients = clients.filter((c) => channels[0].members.some((m) => m.id === c.userId));
  while (probeClients.some((c) => !c.seen.has(0)) && performance.now() - probeStart < 180_000) {
    await sleep(5);
  }
  const backlogDrainMs = performance.now() - probeStart;

  const total = Math.round(RATE * SECONDS);
  const cpuBefore = [api, ...events].map(cpuMs);
  const machineBefore = machineTicks();
  const benchBefore = process.cpuUsage();
  const sends: Promise<void>[] = [];
  const start = performance.now();
  for (let k = 1; k <= total; k++) {
    const due = start + ((k - 1) * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sends.push(send(k, channels[(k - 1) % channels.length]));
  }
  await Promise.allSettled(sends);
  const sendPhaseSeconds = (performance.now() - start) / 1000;
  const expected = new Map<number, number>();
  for (let k = 1; k <= total; k++) {
    for (const m of channels[(k - 1) % channels.length].members) {
      expected.set(m.id, (expected.get(m.id) ?? 0) + 1);
    }
  }
  const expectedTotal = [...expected.values()].reduce((a, b) => a + b, 0);
  const graceDeadline = performance.now() + GRACE_SECONDS * 1000;
  const deliveredCount = () =>
    clients.reduce((n, c) => n + c.seen.size - (c.seen.has(0) ? 1 : 0), 0);
  while (deliveredCount() < expectedTotal && performance.now() < graceDeadline) await sleep(20);
  const rss = {
    api: rssMb(api),
    events: events.map(rssMb),
  };
  // CPU each server process spent per delivery while the load ran: a figure that, unlike
  // latency, does not depend on what else the machine is doing.
  const [apiCpu, ...eventsCpu] = [api, ...events].map((tier, i) => cpuMs(tier) - cpuBefore[i]);
  const machineAfter = machineTicks();
  const benchUsage = process.cpuUsage(benchBefore);
  const benchCpu = (benchUsage.user + benchUsage.system) / 1000;
  stopPolling();

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const sendSorted = sorted(stats.sendMs);
  const delivery = sorted(stats.deliveryMs);
  const regs = sorted(registerMs);
  const fmt = (x: number | undefined) => (x === undefined ? null : Math.round(x * 10) / 10);
  return {
    clients: CLIENTS,
    channelSize: CHANNEL_SIZE,
    rate: RATE,
    seconds: SECONDS,
    eventsProcesses: EVENTS_PROCS,
    register: {
      seconds: fmt(registerSeconds),
      p50: fmt(percentile(regs, 50)),
      p99: fmt(percentile(regs, 99)),
    },
    backlogDrainMs: fmt(backlogDrainMs),
    sendPhaseSeconds: fmt(sendPhaseSeconds),
    deliveriesPerSecond: Math.round((expectedTotal / sendPhaseSeconds) * 10) / 10,
    send: {
      p50: fmt(percentile(sendSorted, 50)),
      p99: fmt(percentile(sendSorted, 99)),
      n: sendSorted.length,
    },
    delivery: {
      p50: fmt(percentile(delivery, 50)),
      p99: fmt(percentile(delivery, 99)),
      max: fmt(delivery[delivery.length - 1]),
    },
    expected: expectedTotal,
    delivered: deliveredCount(),
    lost: expectedTotal - deliveredCount(),
    duplicates: stats.duplicates,
    outOfOrder: stats.outOfOrder,
    serverErrors: stats.serverErrors,
    badQueue: stats.badQueue,
    rssMb: rss,
    cpuMsPerDelivery: {
      api: Math.round((apiCpu / expectedTotal) * 1000) / 1000,
      events: Math.round((eventsCpu.reduce((a, b) => a + b, 0) / expectedTotal) * 1000) / 1000,
      loadGenerator: Math.round((benchCpu / expectedTotal) * 1000) / 1000,
    },
    // Share of both cores busy (all processes: servers, PostgreSQL, Redis, this generator).
    machineBusyPercent: Math.round(
      ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100,
    ),
  };
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
