/**
 * Event-queue benchmark (not a test): `npx tsx bench/events-longpoll.ts`.
 *
 * 1. Starts BENCH_EVENTS_PROCS `events` processes (default 1) and opens BENCH_POLLS idle
 *    long-polls against the first (one queue each), then reports that process's resident memory
 *    before and with the polls waiting.
 * 2. For 10, 1,000 and 10,000 recipients (BENCH_SIZES), each with its own account, queue and a
 *    waiting `GET /events` (Basic auth, over HTTP), sends channel messages through the domain
 *    action (as an API replica does) and measures the send (transaction and publish) and, per
 *    recipient, the time from the send call to its poll's answer: p50 and p99 over all
 *    recipients of BENCH_MESSAGES messages. Each client polls again right after its answer, on
 *    its own keep-alive connection to one of the events processes, in turn (`HttpConnection`:
 *    node:http's client would cost this one load-generator process more than the events
 *    process spends on the same polls).
 *
 * It creates a scratch database (migrated from scratch) and a scratch Redis prefix, and drops
 * both at the end.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { HttpConnection } from './http-client';
import { QueueStore } from '../libs/events/queue-store';
import { makeRealm, makeUser } from '../test/factories';
import { makeChannel } from '../test/channel-factories';
import { startTier } from '../test/multiprocess/processes';
import type { Config } from '../libs/core/config';
import {
  benchQueue,
  bulkMembers,
  percentile,
  sendBenchMessage,
  sleep,
  withScratchWorld,
  type BenchContext,
} from './scratch-world';

const POLLS = Number(process.env.BENCH_POLLS ?? 5000);
const SIZES = (process.env.BENCH_SIZES ?? '10,1000,10000').split(',').map(Number);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5);
/** Events processes; the idle polls go to the first, the recipients' clients are spread over all. */
const EVENTS_PROCS = Number(process.env.BENCH_EVENTS_PROCS ?? 1);

const rssMb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
};

async function main() {
  const results = await withScratchWorld({ HEARTBEAT_SECONDS: '600' }, measure);
  process.stdout.write(`${results.join('\n')}\n`);
}

async function measure(ctx: BenchContext, config: Config): Promise<string[]> {
  const tiers: Awaited<ReturnType<typeof startTier>>[] = [];
  for (let i = 0; i < EVENTS_PROCS; i++) {
    tiers.push(await startTier('events', config, { HEARTBEAT_SECONDS: '600' }));
  }
  const events = tiers[0];
  const pid = events.child.pid!;
  const results: string[] = [];
  try {
    const org = await makeRealm(ctx);
    const poller = await makeUser(ctx, org.realm, { fullName: 'Poller' });
    const store = QueueStore.of(ctx);
    const queueFor = (userId: number) => benchQueue(config, ctx, userId, org.realm.id, null);

    // --- idle long-polls ---
    await sleep(1000);
    const idleRss = rssMb(pid);
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const requests: http.ClientRequest[] = [];
    for (let i = 0; i < POLLS; i++) {
      const queue = await queueFor(poller.user.id);
      const req = http.get(
        `${events.url}/api/v1/events?queue_id=${queue.id}&last_event_id=-1`,
        { agent, headers: { Host: org.host, Authorization: poller.auth } },
        (res) => res.resume(),
      );
      req.on('error', () => undefined);
      requests.push(req);
      if (i % 500 === 499) await sleep(200);
    }
    for (let waited = 0; waited < 360; waited++) {
      const health = (await (await fetch(`${events.url}/health`)).json()) as { polls: number };
      if (health.polls >= POLLS) break;
      await sleep(500);
    }
    const health = (await (await fetch(`${events.url}/health`)).json()) as { polls: number };
    await sleep(1000);
    const pollRss = rssMb(pid);
    const perPoll = POLLS
      ? `, ${(((pollRss - idleRss) * 1024) / POLLS).toFixed(1)} KB per poll`
      : '';
    results.push(
      `| ${POLLS} idle long-polls, one events process | ${health.polls} waiting | RSS ${idleRss.toFixed(0)} MB idle -> ${pollRss.toFixed(0)} MB${perPoll} |`,
    );
    for (const req of requests) req.destroy();
    agent.destroy();
    // Let the events process finish closing those polls before timing deliveries.
    await sleep(5000);

    // --- send-to-delivery latency, through waiting long-polls ---
    const sender = await makeUser(ctx, org.realm, { fullName: 'Sender' });
    const polls = async () => {
      let sum = 0;
      for (const tier of tiers) {
        sum += ((await (await fetch(`${tier.url}/health`)).json()) as { polls: number }).polls;
      }
      return sum;
    };
    for (const size of SIZES) {
      const members = await bulkMembers(ctx, org.realm.id, size - 1, `s${size}`);
      const channel = await makeChannel(ctx, org.realm, {
        name: `bench-${size}`,
        subscribers: [sender.user],
      });
      await ctx.db.subscription.createMany({
        data: members.map((m) => ({
          userId: m.id,
          recipientId: channel.recipientId!,
          color: '#c2c2c2',
        })),
      });
      const endpoints = tiers.map((tier) => new URL(tier.url));
      const clients: {
        auth: string;
        queueId: string;
        last: number;
        got: number;
        connection: HttpConnection;
      }[] = [];
      for (let i = 0; i < members.length; i += 500) {
        const batch = members.slice(i, i + 500);
        const queues = await Promise.all(batch.map((m) => queueFor(m.id)));
        batch.forEach((m, j) =>
          clients.push({
            auth: m.auth,
            queueId: queues[j].id,
            last: -1,
            got: -1,
            connection: new HttpConnection(
              endpoints[(i + j) % tiers.length].hostname,
              Number(endpoints[(i + j) % tiers.length].port),
            ),
          }),
        );
      }
      const answeredAt = new Map<string, number>();
      let running = true;
      const loop = (c: (typeof clients)[number]) => {
        if (!running) return;
        c.connection
          .get(`/api/v1/events?queue_id=${c.queueId}&last_event_id=${c.last}`, {
            Host: org.host,
            Authorization: c.auth,
          })
          .then(
            ({ body }) => {
              const now = performance.now();
              const parsed = JSON.parse(body) as { events?: { id: number; type: string }[] };
              for (const e of parsed.events ?? []) {
                c.last = Math.max(c.last, e.id);
                if (e.type === 'message') {
                  c.got++;
                  answeredAt.set(`${c.queueId}:${c.got}`, now);
                }
              }
              loop(c);
            },
            () => {
              if (!running) return;
              errors++;
              setTimeout(() => loop(c), 100);
            },
          );
      };
      let errors = 0;
      const allWaiting = async (count = clients.length) => {
        const deadline = Date.now() + 120_000;
        while ((await polls()) < count && Date.now() < deadline) await sleep(20);
      };
      // Clients come online 500 at a time, as they would over some seconds: 10,000 connections
      // opened in one instant overflow any listen backlog and measure SYN retries instead.
      for (let i = 0; i < clients.length; i += 500) {
        for (const c of clients.slice(i, i + 500)) loop(c);
        await allWaiting(Math.min(clients.length, i + 500));
      }
      const latencies: number[] = [];
      const sendMs: number[] = [];
      for (let m = 0; m < MESSAGES; m++) {
        await sleep(500);
        const started = performance.now();
        await sendBenchMessage(ctx, sender.user, org.realm, channel, m);
        sendMs.push(performance.now() - started);
        const deadline = Date.now() + 60_000;
        while (clients.some((c) => c.got < m) && Date.now() < deadline) await sleep(5);
        const message = clients.map(
          (c) => (answeredAt.get(`${c.queueId}:${m}`) ?? Infinity) - started,
        );
        latencies.push(...message);
        message.sort((a, b) => a - b);
        // Per message, on stderr: the first message after the clients registered also reads
        // every queue's settings, and the spread between messages is the machine's.
        process.stderr.write(
          `message ${m}: send ${sendMs[m].toFixed(0)} ms, answers from ${message[0].toFixed(0)} ms, p50 ${percentile(message, 50).toFixed(0)} ms, p99 ${percentile(message, 99).toFixed(0)} ms, last ${message[message.length - 1].toFixed(0)} ms\n`,
        );
        await allWaiting();
      }
      running = false;
      for (const c of clients) c.connection.close();
      latencies.sort((a, b) => a - b);
      sendMs.sort((a, b) => a - b);
      results.push(
        `| ${size.toLocaleString('en-US')} recipients (${MESSAGES} messages) | send p50 ${percentile(sendMs, 50).toFixed(1)} ms, max ${sendMs[sendMs.length - 1].toFixed(1)} ms | delivery p50 ${percentile(latencies, 50).toFixed(1)} ms | p99 ${percentile(latencies, 99).toFixed(1)} ms | ${latencies.filter((l) => l === Infinity).length} not delivered in 60 s, ${errors} poll errors |`,
      );
      await sleep(1000);
      await store.collectGarbage(Date.now() + 10 ** 9);
    }
  } finally {
    await Promise.all(tiers.map((tier) => tier.stop()));
  }
  return results;
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
