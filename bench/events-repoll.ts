/**
 * Re-poll benchmark (not a test): `npx tsx bench/events-repoll.ts`.
 *
 * Clients re-poll right after each answer, so a message to a big channel is followed by a poll
 * from every recipient at once. This starts one `events` process, times 500 `dont_block` polls made
 * one after another by one client, then keeps BENCH_RECIPIENTS clients
 * (each its own account and queue) long-polling in a loop, sends BENCH_MESSAGES channel messages
 * one at a time, and times send -> every recipient has its answer and is waiting again. It does
 * so twice: with the events tier checking each poll's credentials in PostgreSQL
 * (EVENTS_AUTH_CACHE_SECONDS=0) and with the default cache (10 s).
 */
import http from 'node:http';
import { makeRealm, makeUser, type TestRealm } from '../test/factories';
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

const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 2000);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5);
const SINGLE_POLLS = 500;

interface Client {
  auth: string;
  queueId: string;
  lastEventId: number;
  received: number;
}

async function main() {
  const rows = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const sender = await makeUser(ctx, org.realm, { fullName: 'Sender' });
    const recipients = await bulkMembers(ctx, org.realm.id, RECIPIENTS, 'r');
    const channel = await makeChannel(ctx, org.realm, {
      name: 'everyone',
      subscribers: [sender.user],
    });
    await ctx.db.subscription.createMany({
      data: recipients.map((r) => ({
        userId: r.id,
        recipientId: channel.recipientId!,
        color: '#c2c2c2',
      })),
    });
    const out: string[] = [];
    for (const cacheSeconds of ['0', '10']) {
      const { times, pollMs } = await round(ctx, config, org, cacheSeconds, recipients, (m) =>
        sendBenchMessage(ctx, sender.user, org.realm, channel, m),
      );
      times.sort((a, b) => a - b);
      out.push(
        `| EVENTS_AUTH_CACHE_SECONDS=${cacheSeconds} | ${pollMs.toFixed(2)} ms per poll, one at a time | ${RECIPIENTS.toLocaleString('en-US')} recipients: median ${percentile(times, 50).toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms |`,
      );
    }
    return out;
  });
  process.stdout.write(`${rows.join('\n')}\n`);
}

/**
 * One events process: the cost of a lone `dont_block` poll, then, per message, send -> every
 * client answered and polling again.
 */
async function round(
  ctx: BenchContext,
  config: Config,
  org: TestRealm,
  cacheSeconds: string,
  recipients: { id: number; auth: string }[],
  send: (m: number) => Promise<void>,
): Promise<{ times: number[]; pollMs: number }> {
  const events = await startTier('events', config, {
    EVENTS_AUTH_CACHE_SECONDS: cacheSeconds,
    HEARTBEAT_SECONDS: '600',
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  let running = true;
  const clients: Client[] = [];
  for (const r of recipients) {
    const queue = await benchQueue(config, ctx, r.id, org.realm.id, ['message']);
    clients.push({ auth: r.auth, queueId: queue.id, lastEventId: -1, received: 0 });
  }
  const pollLoop = (client: Client) => {
    if (!running) return;
    const req = http.get(
      `${events.url}/api/v1/events?queue_id=${client.queueId}&last_event_id=${client.lastEventId}`,
      { agent, headers: { Host: org.host, Authorization: client.auth } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          const parsed = JSON.parse(body) as { events?: { id: number; type: string }[] };
          for (const e of parsed.events ?? []) {
            client.lastEventId = Math.max(client.lastEventId, e.id);
            if (e.type === 'message') client.received++;
          }
          pollLoop(client);
        });
      },
    );
    req.on('error', () => undefined);
  };
  const polls = async () =>
    ((await (await fetch(`${events.url}/health`)).json()) as { polls: number }).polls;
  const allWaiting = async () => {
    while ((await polls()) < clients.length) await sleep(2);
  };
  try {
    const single = async () => {
      const res = await fetch(
        `${events.url}/api/v1/events?queue_id=${clients[0].queueId}&last_event_id=-1&dont_block=true`,
        { headers: { Host: org.host, Authorization: clients[0].auth } },
      );
      await res.arrayBuffer();
    };
    for (let i = 0; i < 50; i++) await single();
    const pollStart = performance.now();
    for (let i = 0; i < SINGLE_POLLS; i++) await single();
    const pollMs = (performance.now() - pollStart) / SINGLE_POLLS;
    for (const client of clients) pollLoop(client);
    await allWaiting();
    const times: number[] = [];
    for (let m = 1; m <= MESSAGES; m++) {
      await sleep(1000);
      const started = performance.now();
      await send(m);
      while (clients.some((c) => c.received < m)) await sleep(2);
      await allWaiting();
      times.push(performance.now() - started);
    }
    return { times, pollMs };
  } finally {
    running = false;
    agent.destroy();
    await events.stop();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
