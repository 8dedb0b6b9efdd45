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
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { TestRealm } from '../test/factories';
import { makeRealm, makeUser } from '../test/factories';
import { makeChannel } from '../test/channel-factories';
import { startTier, type Tier } from '../test/multiprocess/processes';
import { bulkMembers, percentile, sleep, withScratchWorld } from './scratch';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const CHANNEL_SIZE = Number(process.env.BENCH_CHANNEL_SIZE ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const GRACE_SECONDS = Number(process.env.BENCH_GRACE_SECONDS ?? 10);
const EVENTS_PROCS = Number(process.env.BENCH_EVENTS_PROCS ?? 1);
const REGISTER_CONCURRENCY = Number(process.env.BENCH_REGISTER_CONCURRENCY ?? 20);
/**
 * BENCH_WORKER=1: a worker process too (the job relay and the outbox pruning), with
 * BENCH_OUTBOX_RETENTION_SECONDS as its OUTBOX_RETENTION_SECONDS; the report then has the rows and
 * bytes of outbox_events and job_outbox every BENCH_OUTBOX_SAMPLE_SECONDS (default 60).
 */
const WORKER = process.env.BENCH_WORKER === '1';
const OUTBOX_SAMPLE_SECONDS = Number(process.env.BENCH_OUTBOX_SAMPLE_SECONDS ?? 60);

interface Client {
  auth: string;
  userId: number;
  eventsUrl: string;
  queueId: string;
  lastEventId: number;
  seen: Set<number>;
}

interface Stats {
  sendMs: number[];
  deliveryMs: number[];
  duplicates: number;
  outOfOrder: number;
  serverErrors: number;
  badQueue: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

function request(
  url: string,
  method: string,
  auth: string,
  host: string,
  body?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          Host: host,
          Authorization: auth,
          ...(body !== undefined
            ? {
                'Content-Type': 'application/x-www-form-urlencoded',
                'Content-Length': Buffer.byteLength(body),
              }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: Record<string, unknown>;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = { raw: text };
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** Busy and total CPU time of the whole machine so far, in clock ticks. */
function machineTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const idle = ticks[3] + ticks[4];
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** CPU time (user + system) a process has used so far, in ms. */
function cpuMs(tier: Tier): number {
  const fields = readFileSync(`/proc/${tier.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function rssMb(tier: Tier): number {
  const status = readFileSync(`/proc/${tier.child.pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

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
    const workers = WORKER
      ? [
          await startTier('worker', config, {
            ...env,
            OUTBOX_RETENTION_SECONDS: process.env.BENCH_OUTBOX_RETENTION_SECONDS ?? '3600',
          }),
        ]
      : [];
    const outbox: Record<string, number>[] = [];
    const started = Date.now();
    const sample = async () => {
      const [row] = await ctx.db.$queryRaw<Record<string, bigint>[]>`
        SELECT (SELECT count(*) FROM outbox_events) AS events_rows,
               pg_total_relation_size('outbox_events') AS events_bytes,
               (SELECT count(*) FROM job_outbox) AS jobs_rows,
               pg_total_relation_size('job_outbox') AS jobs_bytes`;
      outbox.push({
        atSeconds: Math.round((Date.now() - started) / 1000),
        ...Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])),
      });
    };
    const sampler = WORKER ? setInterval(() => void sample(), OUTBOX_SAMPLE_SECONDS * 1000) : null;
    try {
      const result = await run(org, owner.auth, api, events, members, channels);
      if (WORKER) await sample();
      return WORKER ? { ...result, outbox } : result;
    } catch (err) {
      // What the servers logged, for the failure's cause.
      for (const tier of [api, ...events, ...workers]) {
        process.stderr.write(`--- ${tier.kind}\n${tier.output.join('').slice(-3000)}\n`);
      }
      throw err;
    } finally {
      if (sampler) clearInterval(sampler);
      await Promise.all([
        api.stop(),
        ...events.map((e) => e.stop()),
        ...workers.map((w) => w.stop()),
      ]);
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
  const stats: Stats = {
    sendMs: [],
    deliveryMs: [],
    duplicates: 0,
    outOfOrder: 0,
    serverErrors: 0,
    badQueue: 0,
  };
  const sentAt = new Map<number, number>();
  let running = true;

  const registerStart = performance.now();
  const registerMs: number[] = [];
  const clients: Client[] = [];
  for (let i = 0; i < members.length; i += REGISTER_CONCURRENCY) {
    const batch = members.slice(i, i + REGISTER_CONCURRENCY);
    const made = await Promise.all(
      batch.map(async (m, j) => {
        const started = performance.now();
        const res = await request(
          `${api.url}/api/v1/register`,
          'POST',
          m.auth,
          org.host,
          form({ event_types: '["message"]', fetch_event_types: '["message"]' }),
        );
        registerMs.push(performance.now() - started);
        if (res.status >= 500) stats.serverErrors++;
        if (res.status !== 200)
          throw new Error(`register: ${res.status} ${JSON.stringify(res.json)}`);
        return {
          auth: m.auth,
          userId: m.id,
          eventsUrl: events[(i + j) % events.length].url,
          queueId: res.json.queue_id as string,
          lastEventId: Number(res.json.last_event_id),
          seen: new Set<number>(),
        };
      }),
    );
    clients.push(...made);
  }
  const registerSeconds = (performance.now() - registerStart) / 1000;

  const poll = (client: Client) => {
    if (!running) return;
    request(
      `${client.eventsUrl}/api/v1/events?queue_id=${client.queueId}&last_event_id=${client.lastEventId}`,
      'GET',
      client.auth,
      org.host,
    )
      .then(({ status, json }) => {
        const now = performance.now();
        if (status >= 500) stats.serverErrors++;
        if (status !== 200) {
          if (json.code === 'BAD_EVENT_QUEUE_ID') stats.badQueue++;
          return setTimeout(() => poll(client), 100);
        }
        for (const e of (json.events ?? []) as {
          id: number;
          type: string;
          message?: { content: string };
        }[]) {
          if (e.id <= client.lastEventId) stats.outOfOrder++;
          client.lastEventId = Math.max(client.lastEventId, e.id);
          if (e.type !== 'message' || !e.message) continue;
          const k = Number(/m(\d+)m/.exec(e.message.content)?.[1]);
          if (client.seen.has(k)) {
            stats.duplicates++;
            continue;
          }
          client.seen.add(k);
          const started = sentAt.get(k);
          if (started !== undefined && k > 0) stats.deliveryMs.push(now - started);
        }
        poll(client);
      })
      .catch(() => setTimeout(() => poll(client), 100));
  };
  for (const client of clients) poll(client);

  const waiting = async () => {
    let n = 0;
    for (const e of events) {
      n += ((await (await fetch(`${e.url}/health`)).json()) as { polls: number }).polls;
    }
    return n;
  };
  const settleDeadline = Date.now() + 120_000;
  while ((await waiting()) < clients.length && Date.now() < settleDeadline) await sleep(100);

  const send = async (k: number, channel: (typeof channels)[number]) => {
    const started = performance.now();
    sentAt.set(k, started);
    const res = await request(
      `${api.url}/api/v1/messages`,
      'POST',
      senderAuth,
      org.host,
      form({ type: 'stream', to: String(channel.id), topic: 'load', content: `m${k}m` }),
    );
    if (k > 0) stats.sendMs.push(performance.now() - started);
    if (res.status >= 500) stats.serverErrors++;
    if (res.status !== 200) throw new Error(`send: ${res.status} ${JSON.stringify(res.json)}`);
  };

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
  running = false;

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
