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
 *
 * BENCH_TOPOLOGY=all runs `npm start` instead (the compiled dist/apps/all/main.js, with
 * BENCH_WEB_CONCURRENCY processes, unset: the build's own default; BENCH_DIST_DIR picks another
 * build, e.g. /work/wt/base/dist for a "before") and drives registers, sends and polls through its
 * one URL.
 *
 * Every send's answer is counted by status (`answers`; 'none': no answer), with the slowest answer
 * and the accepted messages never delivered; only accepted sends count in `send` and `expected`.
 *
 * BENCH_RECOVERY_SECONDS > 0 makes it an overload run: after the measured phase messages go on at BENCH_RECOVERY_RATE for that many
 * seconds, and `recovery` says how long after the overload every following second again met
 * the bounds (send p50 <= 20 ms, p99 <= 100 ms; delivery p50 <= 50 ms, p99 <= 200 ms; no refusal):
 * `withinBoundsAfterSeconds` judges each second's sends alone, `boundsHoldFromSecond` all the sends
 * from that second to the end together.
 *
 * BENCH_REALM_CHANGE_AT=<second> changes the organization's row once, that many seconds into the
 * measured phase (its name, in the database, as an administrator's settings change writes it): what
 * that costs the clients shows in `answers`, `serverErrors` and `slowestAnswerBySecond`.
 *
 * BENCH_SERVER_LOG=<file> keeps what `npm start` logged (with BENCH_TOPOLOGY=all;
 * BENCH_LOG_LEVEL=debug adds the periodic tasks' own lines).
 *
 * The clients behave as real ones do (issue 48); each behaviour has a variable, and
 * BENCH_CLIENT_LIKE=bench sets all of them to the benchmark's clients before issue 48:
 * - BENCH_ACCOUNTS: `api` (default), accounts made through `POST /users` and `POST
 *   /fetch_api_key`, channels through `POST /users/me/subscriptions`; `bulk`, rows inserted;
 * - BENCH_HTTP: `fetch` (default), a generic fetch client (undici, one keep-alive pool) that sends
 *   the server's address as Host; `http`, node:http with the organization's host name;
 * - BENCH_REGISTER: `full` (default), every event type and the whole initial state; `messages`,
 *   message events and their state only (`fetch_event_types`);
 * - BENCH_SENDERS: `members` (default), each message from a member of its channel (the same
 *   pseudo-random member for message k in every run); `one`, every message from the owner;
 * - BENCH_CHANNEL_BY: `name` (default) or `id`, how `to` names the channel;
 * - BENCH_CONTENT: `markdown` (default), e.g. `hello [m12] from 45`, bold, a link and in every
 *   tenth message a mention of another member; `plain`, `m12m`.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { TestRealm, TestUser } from '../test/factories';
import { makeRealm, makeUser } from '../test/factories';
import { freePort } from '../test/free-port';
import { startTier, type Tier } from '../test/multiprocess/processes';
import {
  agent,
  cpuMsOf,
  fetchRequest,
  form,
  machineTicks,
  newStats,
  processTreeOf,
  registerClients,
  request,
  rssMbOf,
  startPolling,
  type Request,
} from './realtime-clients';
import { basicAuth } from '../test/harness';
import {
  bulkChannels,
  bulkMembers,
  percentile,
  sleep,
  withScratchWorld,
  type BenchContext,
} from './scratch-world';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const CHANNEL_SIZE = Number(process.env.BENCH_CHANNEL_SIZE ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const GRACE_SECONDS = Number(process.env.BENCH_GRACE_SECONDS ?? 10);
const EVENTS_PROCS = Number(process.env.BENCH_EVENTS_PROCS ?? 1);
const REGISTER_CONCURRENCY = Number(process.env.BENCH_REGISTER_CONCURRENCY ?? 20);
const TOPOLOGY = process.env.BENCH_TOPOLOGY === 'all' ? 'all' : 'tiers';
const RECOVERY_SECONDS = Number(process.env.BENCH_RECOVERY_SECONDS ?? 0);
const RECOVERY_RATE = Number(process.env.BENCH_RECOVERY_RATE ?? 20);
/**
 * BENCH_WARMUP_SECONDS > 0: that many seconds of the same load before the measured phase, left
 * out of every figure but its own (`warmup`): a process's first seconds of a load run code and
 * statements it has not run before.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 0);
const WARMUP_FIRST = 1_000_000;
const REALM_CHANGE_AT_SECOND = Number(process.env.BENCH_REALM_CHANGE_AT ?? -1);
const BOUNDS = { sendP50: 20, sendP99: 100, deliveryP50: 50, deliveryP99: 200 };
/**
 * BENCH_WORKER=1: a worker process too (the job relay and the outbox pruning), with
 * BENCH_OUTBOX_RETENTION_SECONDS as its OUTBOX_RETENTION_SECONDS; the report then has the rows and
 * bytes of outbox_events and job_outbox every BENCH_OUTBOX_SAMPLE_SECONDS (default 60).
 */
const WORKER = process.env.BENCH_WORKER === '1';
const OUTBOX_SAMPLE_SECONDS = Number(process.env.BENCH_OUTBOX_SAMPLE_SECONDS ?? 60);

/** A behaviour's setting: its variable, else the bench's before issue 48 or the real client's. */
function behaviour<T extends string>(name: string, real: T, bench: T): T {
  const fallback = process.env.BENCH_CLIENT_LIKE === 'bench' ? bench : real;
  return (process.env[name] ?? fallback) as T;
}
const CLIENT = {
  accounts: behaviour<'api' | 'bulk'>('BENCH_ACCOUNTS', 'api', 'bulk'),
  http: behaviour<'fetch' | 'http'>('BENCH_HTTP', 'fetch', 'http'),
  register: behaviour<'full' | 'messages'>('BENCH_REGISTER', 'full', 'messages'),
  senders: behaviour<'members' | 'one'>('BENCH_SENDERS', 'members', 'one'),
  channelBy: behaviour<'name' | 'id'>('BENCH_CHANNEL_BY', 'name', 'id'),
  content: behaviour<'markdown' | 'plain'>('BENCH_CONTENT', 'markdown', 'plain'),
};
const call: Request = CLIENT.http === 'fetch' ? fetchRequest : request;

interface Member {
  id: number;
  auth: string;
  fullName: string;
}

interface BenchChannel {
  id: number;
  name: string;
  members: Member[];
}

/** Message k's sender among its channel's members: the same one in every run. */
const senderOf = (k: number, channel: BenchChannel): Member =>
  channel.members[(Math.imul(k, 2654435761) >>> 0) % channel.members.length];

/** Renames the organization once, REALM_CHANGE_AT_SECOND into the measured phase. */
async function changeRealmAfter(ctx: BenchContext, org: TestRealm): Promise<void> {
  await sleep(REALM_CHANGE_AT_SECOND * 1000);
  await ctx.db.realm.update({ where: { id: org.realm.id }, data: { name: 'Renamed under load' } });
}

/** Message k as a person writes it: a little Markdown, and now and then a mention. */
function markdownOf(k: number, sender: Member, channel: BenchChannel): string {
  const senderIndex = channel.members.indexOf(sender);
  const other = channel.members[(senderIndex + 1) % channel.members.length];
  const mention = k % 10 === 0 ? ` cc @**${other.fullName}**` : '';
  return `hello [m${k}] from ${senderIndex}, with **some bold** and [a link](https://example.com/notes/${k % 97})${mention}`;
}

const cpuMs = (tier: Tier) => cpuMsOf(tier.child.pid!);
const rssMb = (tier: Tier) => rssMbOf(tier.child.pid!);

/** BENCH_CLIENTS accounts in channels of BENCH_CHANNEL_SIZE, the owner in every channel. */
/**
 * A first message in each channel, as a channel made through the API has (its notice) and a
 * real one has long had: a channel's first message also tells every user who sees the channel
 * without receiving it (Zulip's `first_message_id` update), 1,950 events each here, which a
 * server meets once per channel, not in the measured seconds.
 */
async function giveHistory(
  apiUrl: string,
  owner: TestUser,
  host: string,
  channels: BenchChannel[],
): Promise<void> {
  for (const channel of channels) {
    const res = await call(
      `${apiUrl}/api/v1/messages`,
      'POST',
      owner.auth,
      host,
      form({ type: 'stream', to: String(channel.id), topic: 'history', content: 'history' }),
    );
    if (res.status !== 200) throw new Error(`history of ${channel.name}: ${res.status}`);
  }
}

async function makeWorld(
  ctx: BenchContext,
  org: TestRealm,
  owner: TestUser,
  apiUrl: string,
): Promise<{ members: Member[]; channels: BenchChannel[] }> {
  const channels: BenchChannel[] = [];
  if (CLIENT.accounts === 'bulk') {
    const members = (await bulkMembers(ctx, org.realm.id, CLIENTS, 'load')).map((m, i) => ({
      ...m,
      fullName: `Bench load ${i}`,
    }));
    channels.push(...(await bulkChannels(ctx, org.realm, owner.user, members, CHANNEL_SIZE)));
    await giveHistory(apiUrl, owner, org.host, channels);
    return { members, channels };
  }
  // Through the API, as an administrator makes them: the server's operator grants the owner
  // `can_create_users` (the CLI's job), the owner creates each account, and each user fetches
  // its own API key with its password.
  const admin = org.owner;
  await ctx.db.user.update({ where: { id: admin.user.id }, data: { canCreateUsers: true } });
  // A refusal past capacity says when to come back, as clients do.
  const ok = async (
    what: string,
    attempt: () => Promise<{ status: number; json: Record<string, unknown> }>,
  ) => {
    let res = await attempt();
    for (let retry = 0; res.status === 503 && retry < 10; retry++) {
      await sleep(Number(res.json['retry-after'] ?? 1) * 1000);
      res = await attempt();
    }
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json;
  };
  const members: Member[] = [];
  for (let i = 0; i < CLIENTS; i += REGISTER_CONCURRENCY) {
    const batch = Array.from(
      { length: Math.min(REGISTER_CONCURRENCY, CLIENTS - i) },
      (_, j) => i + j,
    );
    members.push(
      ...(await Promise.all(
        batch.map(async (n) => {
          const email = `load-${n}@bench.test`;
          const password = `bench-password-${n}-${org.realm.id}`;
          const fullName = `Bench load ${n}`;
          const made = await ok('POST /users', () =>
            call(
              `${apiUrl}/api/v1/users`,
              'POST',
              admin.auth,
              org.host,
              form({ email, password, full_name: fullName }),
            ),
          );
          const key = await ok('POST /fetch_api_key', () =>
            call(
              `${apiUrl}/api/v1/fetch_api_key`,
              'POST',
              '',
              org.host,
              form({ username: email, password }),
            ),
          );
          return {
            id: Number(made.user_id),
            auth: basicAuth(email, String(key.api_key)),
            fullName,
          };
        }),
      )),
    );
  }
  for (let i = 0; i < CLIENTS; i += CHANNEL_SIZE) {
    const group = members.slice(i, i + CHANNEL_SIZE);
    const name = `load-${i / CHANNEL_SIZE}`;
    await ok('POST /users/me/subscriptions', () =>
      call(
        `${apiUrl}/api/v1/users/me/subscriptions`,
        'POST',
        admin.auth,
        org.host,
        form({
          subscriptions: JSON.stringify([{ name }]),
          principals: JSON.stringify([owner.user.id, ...group.map((m) => m.id)]),
        }),
      ),
    );
    const channel = await ctx.db.stream.findFirstOrThrow({
      where: { realmId: org.realm.id, name },
      select: { id: true },
    });
    channels.push({ id: channel.id, name, members: group });
  }
  return { members, channels };
}

async function main() {
  const report = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const owner = await makeUser(ctx, org.realm, { fullName: 'Owner' });

    const env = {
      HEARTBEAT_SECONDS: '60',
      EVENTS_AUTH_CACHE_SECONDS: '10',
      // The production default, which the test harness's processes raise.
      OVERLOAD_EVENT_LOOP_LAG_MS: process.env.OVERLOAD_EVENT_LOOP_LAG_MS ?? '500',
      OVERLOAD_ANSWER_TARGET_MS: process.env.OVERLOAD_ANSWER_TARGET_MS ?? '300',
    };
    if (TOPOLOGY === 'all') {
      const metricsPort = await freePort();
      const all = await startTier(
        'all',
        config,
        {
          ...env,
          METRICS_PORT: String(metricsPort),
          LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
          // Unset: the build's own default, as `npm start` runs it.
          WEB_CONCURRENCY: process.env.BENCH_WEB_CONCURRENCY,
        },
        undefined,
        // Profiled workers on a busy machine may take longer than a test allows.
        { built: !process.env.BENCH_DIST_DIR, startSeconds: 120 },
      );
      const metricsText = async () =>
        (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const pollsWaiting = async () => {
        const text = await metricsText();
        return Number(/^chat_events_polls_waiting(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
      };
      // Why sends were refused, if any were: the refusal counts every process reports.
      const refusalsByReason = async () => {
        const text = await metricsText();
        const counts: Record<string, number> = {};
        for (const [, reason, n] of text.matchAll(
          /^chat_overload_refusals_total\{[^}]*reason="([^"]+)"[^}]*\} (\d+)/gm,
        )) {
          counts[reason] = (counts[reason] ?? 0) + Number(n);
        }
        return counts;
      };
      try {
        const { members, channels } = await makeWorld(ctx, org, owner, all.url);
        const result = await run(ctx, org, owner.auth, all, [all], members, channels, pollsWaiting);
        return { ...result, refusalsByReason: await refusalsByReason() };
      } finally {
        await all.stop();
        if (process.env.BENCH_SERVER_LOG)
          writeFileSync(process.env.BENCH_SERVER_LOG, all.output.join(''));
      }
    }
    const api = await startTier('api', config, env);
    const events: Tier[] = [];
    for (let i = 0; i < EVENTS_PROCS; i++) events.push(await startTier('events', config, env));
    const pollsWaiting = async () => {
      let n = 0;
      for (const e of events) {
        n += ((await (await fetch(`${e.url}/health`)).json()) as { polls: number }).polls;
      }
      return n;
    };
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
      const { members, channels } = await makeWorld(ctx, org, owner, api.url);
      const result = await run(ctx, org, owner.auth, api, events, members, channels, pollsWaiting);
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
  ctx: BenchContext,
  org: TestRealm,
  senderAuth: string,
  api: Tier,
  events: Tier[],
  members: Member[],
  channels: BenchChannel[],
  pollsWaiting: () => Promise<number>,
) {
  const stats = newStats();
  const sentAt = new Map<number, number>();
  // Delivery latencies of each message, for the recovery's per-second figures.
  const deliveriesOf = new Map<number, number[]>();
  const total = Math.round(RATE * SECONDS);

  const registerStart = performance.now();
  const {
    clients,
    registerMs,
    refused: registerRefused,
  } = await registerClients({
    apiUrl: api.url,
    host: org.host,
    members,
    concurrency: REGISTER_CONCURRENCY,
    eventsUrlOf: (i) => events[i % events.length].url,
    stats,
    shape: CLIENT.register,
    call,
  });
  const registerSeconds = (performance.now() - registerStart) / 1000;
  const stopPolling = startPolling(
    clients,
    org.host,
    sentAt,
    stats,
    (k, ms) => {
      if (k <= total) stats.deliveryMs.push(ms);
      const latencies = deliveriesOf.get(k) ?? [];
      latencies.push(ms);
      deliveriesOf.set(k, latencies);
    },
    call,
  );

  const settleDeadline = Date.now() + 120_000;
  while ((await pollsWaiting()) < clients.length && Date.now() < settleDeadline) await sleep(100);

  // Every send's answer by status ('none': no answer, the connection failed), its time, and the
  // messages accepted.
  const answers: Record<string, number> = {};
  const answerMs = new Map<number, number>();
  const statusOf = new Map<number, string>();
  const refused = new Set<number>();
  const accepted = new Set<number>();
  const send = async (k: number, channel: BenchChannel) => {
    const sender = senderOf(k, channel);
    const body = form({
      type: 'stream',
      to: CLIENT.channelBy === 'name' ? channel.name : String(channel.id),
      topic: 'load',
      content: CLIENT.content === 'markdown' ? markdownOf(k, sender, channel) : `m${k}m`,
    });
    const auth = CLIENT.senders === 'members' ? sender.auth : senderAuth;
    const started = performance.now();
    sentAt.set(k, started);
    const res = await call(`${api.url}/api/v1/messages`, 'POST', auth, org.host, body).catch(
      (err: unknown) => ({ status: 0, json: { error: String(err) } }),
    );
    const ms = performance.now() - started;
    answerMs.set(k, ms);
    if (k > 0 && k <= total && res.status === 200) stats.sendMs.push(ms);
    const status = res.status === 0 ? 'none' : String(res.status);
    if (k > 0 && k < WARMUP_FIRST) answers[status] = (answers[status] ?? 0) + 1;
    statusOf.set(k, status);
    if (res.status >= 500 && k < WARMUP_FIRST) stats.serverErrors++;
    if (res.status === 200) accepted.add(k);
    else if (res.status === 503) refused.add(k);
    // The probe must get through; anything else is counted by status, refusals included.
    if (k === 0 && res.status !== 200) {
      throw new Error(`send: ${res.status} ${JSON.stringify(res.json)}`);
    }
  };

  // Probe: how long until a message gets through the backlog that account set-up left behind.
  const probeStart = performance.now();
  for (let attempt = 1; ; attempt++) {
    const sent = await send(0, channels[0]).then(
      () => true,
      (err: unknown) => {
        // Refused while set-up's backlog drains: try again as a client would.
        if (attempt === 10) throw err;
        return false;
      },
    );
    if (sent) break;
    await sleep(2000);
  }
  const probeClients = clients.filter((c) => channels[0].members.some((m) => m.id === c.userId));
  while (probeClients.some((c) => !c.seen.has(0)) && performance.now() - probeStart < 180_000) {
    await sleep(5);
  }
  const backlogDrainMs = performance.now() - probeStart;

  // Warm-up: the same load, unmeasured, numbered far above the measured and recovery messages.
  await sendAtRate(send, channels, RATE, WARMUP_FIRST, Math.round(RATE * WARMUP_SECONDS));
  const warmupStatuses: Record<string, number> = {};
  for (const [k, status] of statusOf) {
    if (k >= WARMUP_FIRST) warmupStatuses[status] = (warmupStatuses[status] ?? 0) + 1;
  }
  const warmupAnswerMs = [...answerMs].filter(([k]) => k >= WARMUP_FIRST).map(([, ms]) => ms);

  const servers = TOPOLOGY === 'all' ? [api] : [api, ...events];
  const cpuBefore = servers.map(cpuMs);
  const machineBefore = machineTicks();
  // The generator's own lateness is in every time it measures: report it beside them.
  const generatorLag = monitorEventLoopDelay({ resolution: 10 });
  generatorLag.enable();
  const benchBefore = process.cpuUsage();
  const start = performance.now();
  const measuredFrom = new Date().toISOString();
  const measuredFromMonotonicUs = Number(process.hrtime.bigint() / 1000n);
  const realmChange = REALM_CHANGE_AT_SECOND >= 0 ? changeRealmAfter(ctx, org) : null;
  await sendAtRate(send, channels, RATE, 1, total);
  await realmChange;
  const sendPhaseSeconds = (performance.now() - start) / 1000;
  const recovery =
    RECOVERY_SECONDS > 0
      ? await recover(send, channels, total, answerMs, deliveriesOf, refused)
      : null;
  const expected = new Map<number, number>();
  for (let k = 1; k <= total; k++) {
    if (!accepted.has(k)) continue;
    for (const m of channels[(k - 1) % channels.length].members) {
      expected.set(m.id, (expected.get(m.id) ?? 0) + 1);
    }
  }
  const expectedTotal = [...expected.values()].reduce((a, b) => a + b, 0);
  const graceDeadline = performance.now() + GRACE_SECONDS * 1000;
  // Deliveries of the accepted messages of the measured phase (not the probe, not the recovery).
  const deliveredCount = () =>
    clients.reduce((n, c) => n + [...c.seen].filter((k) => k > 0 && k <= total).length, 0);
  while (deliveredCount() < expectedTotal && performance.now() < graceDeadline) await sleep(20);
  const rss =
    TOPOLOGY === 'all' ? { all: rssMb(api) } : { api: rssMb(api), events: events.map(rssMb) };
  // CPU each server process spent per delivery while the load ran: a figure that, unlike
  // latency, does not depend on what else the machine is doing.
  const [apiCpu, ...eventsCpu] = servers.map((tier, i) => cpuMs(tier) - cpuBefore[i]);
  const machineAfter = machineTicks();
  const benchUsage = process.cpuUsage(benchBefore);
  const benchCpu = (benchUsage.user + benchUsage.system) / 1000;
  generatorLag.disable();
  stopPolling();

  const slowAnswers = (overMs: number) => {
    const byStatus: Record<string, number> = {};
    for (const [k, ms] of answerMs) {
      if (k < 1 || k > total || ms <= overMs) continue;
      const status = statusOf.get(k) ?? 'none';
      byStatus[status] = (byStatus[status] ?? 0) + 1;
    }
    return byStatus;
  };
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const sendSorted = sorted(stats.sendMs);
  const delivery = sorted(stats.deliveryMs);
  const regs = sorted(registerMs);
  const fmt = (x: number | undefined) => (x === undefined ? null : Math.round(x * 10) / 10);
  return {
    topology: TOPOLOGY,
    clientBehaviour: CLIENT,
    processes: TOPOLOGY === 'all' ? processTreeOf(api.child.pid!).length : 1 + events.length,
    clients: CLIENTS,
    channelSize: CHANNEL_SIZE,
    rate: RATE,
    seconds: SECONDS,
    eventsProcesses: EVENTS_PROCS,
    register: {
      seconds: fmt(registerSeconds),
      // Registers answered 503 and sent again after `Retry-After`.
      refused: registerRefused,
      p50: fmt(percentile(regs, 50)),
      p99: fmt(percentile(regs, 99)),
    },
    backlogDrainMs: fmt(backlogDrainMs),
    warmup: {
      seconds: WARMUP_SECONDS,
      answers: warmupStatuses,
      slowestAnswerMs: fmt(Math.max(0, ...warmupAnswerMs)),
    },
    // Wall-clock start of the measured phase, to line the run up with other records (top, logs).
    measuredFrom,
    // The same on the monotonic clock, which CPU profiles use (bench/profile-summary.ts --from).
    measuredFromMonotonicUs,
    realmChangedAtSecond: REALM_CHANGE_AT_SECOND >= 0 ? REALM_CHANGE_AT_SECOND : null,
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
    answers,
    slowestAnswerMs: fmt(
      Math.max(0, ...[...answerMs].filter(([k]) => k > 0 && k <= total).map(([, ms]) => ms)),
    ),
    // Where the slow answers were: by status, and the slowest of each second's sends.
    answersOver1s: slowAnswers(1000),
    answersOver2s: slowAnswers(2000),
    slowestAnswerBySecond: Array.from({ length: SECONDS }, (_, second) =>
      Math.round(
        Math.max(
          0,
          ...Array.from({ length: RATE }, (_, i) => answerMs.get(second * RATE + i + 1) ?? 0),
        ),
      ),
    ),
    accepted: [...accepted].filter((k) => k > 0 && k < WARMUP_FIRST).length,
    acceptedUndelivered: expectedTotal - deliveredCount(),
    recovery,
    cpuMsPerDelivery: {
      [TOPOLOGY === 'all' ? 'all' : 'api']: Math.round((apiCpu / expectedTotal) * 1000) / 1000,
      events: Math.round((eventsCpu.reduce((a, b) => a + b, 0) / expectedTotal) * 1000) / 1000,
      loadGenerator: Math.round((benchCpu / expectedTotal) * 1000) / 1000,
    },
    // Share of both cores busy (all processes: servers, PostgreSQL, Redis, this generator).
    loadGeneratorLagMs: {
      p50: fmt(generatorLag.percentile(50) / 1e6 - 10),
      p99: fmt(generatorLag.percentile(99) / 1e6 - 10),
      max: fmt(generatorLag.max / 1e6 - 10),
    },
    machineBusyPercent: Math.round(
      ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100,
    ),
  };
}

/**
 * Sends messages `first` to `first + count - 1` at `rate` a second, message k to channel k - 1
 * round-robin, and resolves once every one is answered.
 */
async function sendAtRate(
  send: (k: number, channel: BenchChannel) => Promise<void>,
  channels: BenchChannel[],
  rate: number,
  first: number,
  count: number,
): Promise<void> {
  const sends: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    const k = first + i;
    sends.push(send(k, channels[(k - 1) % channels.length]));
  }
  await Promise.allSettled(sends);
}

/**
 * After an overload: messages at RECOVERY_RATE for RECOVERY_SECONDS (numbered after the
 * overload's), then, per second of sends, the send and delivery percentiles. Recovered at the
 * start of the first second from which every second meets the bounds, with no refusal and nothing
 * undelivered.
 */
async function recover(
  send: (k: number, channel: BenchChannel) => Promise<void>,
  channels: BenchChannel[],
  first: number,
  answerMs: Map<number, number>,
  deliveriesOf: Map<number, number[]>,
  refused: Set<number>,
) {
  const count = Math.round(RECOVERY_RATE * RECOVERY_SECONDS);
  // Wall-clock, to line a second up with the servers' logs and PostgreSQL's.
  const startedAt = new Date().toISOString();
  await sendAtRate(send, channels, RECOVERY_RATE, first + 1, count);
  await sleep(GRACE_SECONDS * 1000);
  const round = (x: number | undefined) => (x === undefined ? null : Math.round(x));
  /** The bounds of point 1 over the sends `ks`, taken together. */
  const judge = (ks: number[]) => {
    const sendMs = ks.map((k) => answerMs.get(k) ?? Infinity).sort((a, b) => a - b);
    const delivery = ks.flatMap((k) => deliveriesOf.get(k) ?? []).sort((a, b) => a - b);
    const undelivered = ks.reduce(
      (n, k) =>
        n +
        (refused.has(k)
          ? 0
          : channels[(k - 1) % channels.length].members.length -
            (deliveriesOf.get(k)?.length ?? 0)),
      0,
    );
    const row = {
      sendP50: round(percentile(sendMs, 50)),
      sendP99: round(percentile(sendMs, 99)),
      deliveryP50: round(percentile(delivery, 50)),
      deliveryP99: round(percentile(delivery, 99)),
      refused: ks.filter((k) => refused.has(k)).length,
      undelivered,
    };
    const within =
      row.refused === 0 &&
      undelivered === 0 &&
      (row.sendP50 ?? Infinity) <= BOUNDS.sendP50 &&
      (row.sendP99 ?? Infinity) <= BOUNDS.sendP99 &&
      (row.deliveryP50 ?? Infinity) <= BOUNDS.deliveryP50 &&
      (row.deliveryP99 ?? Infinity) <= BOUNDS.deliveryP99;
    return { ...row, within };
  };
  const sendsOf = (second: number) =>
    Array.from({ length: RECOVERY_RATE }, (_, i) => first + 1 + second * RECOVERY_RATE + i);
  const seconds = Array.from({ length: RECOVERY_SECONDS }, (_, second) => ({
    second,
    ...judge(sendsOf(second)),
  }));
  // The bounds are percentiles of a sustained run: judged over every send from a second on, not
  // over each second's 20 sends alone, whose p99 is their slowest.
  let holdFrom = 0;
  while (
    holdFrom < RECOVERY_SECONDS &&
    !judge(
      Array.from({ length: RECOVERY_SECONDS - holdFrom }, (_, i) => sendsOf(holdFrom + i)).flat(),
    ).within
  ) {
    holdFrom++;
  }
  let from = seconds.length;
  while (from > 0 && seconds[from - 1].within) from--;
  return {
    rate: RECOVERY_RATE,
    startedAt,
    withinBoundsAfterSeconds: from < seconds.length ? from : null,
    boundsHoldFromSecond: holdFrom < RECOVERY_SECONDS ? holdFrom : null,
    seconds,
  };
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
