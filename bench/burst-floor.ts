/**
 * The floor under delivering one message to a big channel's waiting polls (not a test): what
 * node's HTTP servers alone take to answer BENCH_CLIENTS (10,000) polls held open at once, and
 * this load generator to read the answers, on this machine, with nothing of ours running.
 *
 *   npx tsx bench/burst-floor.ts          # 10,000 polls over 2 server processes, 3 bursts
 *
 * BENCH_SERVERS (2) processes each hold their share of the polls (one keep-alive connection per
 * client, `HttpConnection`, as bench/events-longpoll.ts polls); at a burst the parent tells every
 * server at once, and each answers all its polls with a message event of a realistic size and
 * our headers. Each client polls again at once; with BENCH_FLOOR=redis every poll first runs, in
 * its server, a script doing what our poll script does (`bench/poll-floor.ts`). Reported: the
 * time from the burst to each answer read by its client, p50 and p99 over BENCH_BURSTS bursts, the
 * floor of events-longpoll.ts's delivery figure less the send and the dispatch.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { HttpConnection } from './http-client';
import { percentile, round, sleep } from './scratch-world';
import {
  answerAsOurs,
  EVENT as FLOOR_EVENT,
  floorAuthorization,
  POLL_LIKE,
} from './floor-poll-shape';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 10_000);
const SERVERS = Number(process.env.BENCH_SERVERS ?? 2);
const BURSTS = Number(process.env.BENCH_BURSTS ?? 3);
const MODE = process.env.BENCH_FLOOR === 'redis' ? 'redis' : 'bare';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** poll-floor's event, in a channel named as this benchmark's. */
const EVENT = {
  ...FLOOR_EVENT,
  message: { ...FLOOR_EVENT.message, subject: 'bench', display_recipient: 'bench-10000' },
};

/** A server process: holds polls until the parent says "burst", then answers them all. */
function serve(): void {
  const redis = MODE === 'redis' ? new Redis(REDIS_URL, { enableAutoPipelining: true }) : null;
  redis?.defineCommand('floorPoll', { numberOfKeys: 2, lua: POLL_LIKE });
  const poll = redis
    ? (redis as unknown as { floorPoll(...a: string[]): Promise<unknown> }).floorPoll.bind(redis)
    : null;
  let held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (!poll) return void held.push(res);
    const queue = /queue_id=([^&]+)/.exec(req.url ?? '')?.[1] ?? 'none';
    void poll(`floor:q:${queue}`, `floor:e:${queue}`, String(Date.now())).then(() =>
      held.push(res),
    );
  });
  process.on('message', (message: string) => {
    if (message === 'count') return void process.send?.({ held: held.length });
    const answering = held;
    held = [];
    for (const res of answering) {
      const json = JSON.stringify({ result: 'success', msg: '', events: [EVENT], queue_id: 'q' });
      answerAsOurs(res, json);
    }
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
}

const ask = <T>(child: ChildProcess, message?: string) =>
  new Promise<T>((resolve) => {
    child.once('message', (reply) => resolve(reply as T));
    if (message) child.send(message);
  });

async function main(): Promise<void> {
  const servers = Array.from({ length: SERVERS }, () =>
    fork(__filename, ['--serve'], { execArgv: process.execArgv, stdio: 'inherit' }),
  );
  const ports = await Promise.all(servers.map((s) => ask<{ port: number }>(s)));
  const held = async () =>
    (await Promise.all(servers.map((s) => ask<{ held: number }>(s, 'count')))).reduce(
      (sum, r) => sum + r.held,
      0,
    );
  let burstAt = 0;
  const latencies: number[] = [];
  let running = true;
  const loops = Array.from({ length: CLIENTS }, async (_, i) => {
    const connection = new HttpConnection('127.0.0.1', ports[i % SERVERS].port);
    for (let last = -1; running; last++) {
      const { body } = await connection.get(`/api/v1/events?queue_id=${i}&last_event_id=${last}`, {
        Host: 'localhost',
        Authorization: floorAuthorization(i),
      });
      JSON.parse(body);
      if (burstAt) latencies.push(performance.now() - burstAt);
    }
    connection.close();
  });
  const allHeld = async () => {
    const deadline = Date.now() + 120_000;
    while ((await held()) < CLIENTS && Date.now() < deadline) await sleep(50);
  };
  const bursts: { p50: number; p99: number; last: number }[] = [];
  for (let b = 0; b < BURSTS; b++) {
    await allHeld();
    await sleep(500);
    const from = latencies.length;
    burstAt = performance.now();
    for (const server of servers) server.send('burst');
    while (latencies.length - from < CLIENTS) await sleep(5);
    const burst = latencies.slice(from).sort((a, b) => a - b);
    bursts.push({
      p50: round(percentile(burst, 50)),
      p99: round(percentile(burst, 99)),
      last: round(burst[burst.length - 1]),
    });
  }
  running = false;
  for (const server of servers) server.kill('SIGKILL');
  await Promise.allSettled(loops);
  process.stdout.write(
    `${JSON.stringify({ mode: MODE, clients: CLIENTS, servers: SERVERS, bursts })}\n`,
  );
}

if (process.argv[2] === '--serve') serve();
else void main();
