/**
 * The floor under the events tier's CPU per delivery (not a test): what node's HTTP server alone
 * spends to answer one long-poll and take the client's next one, and what one Redis script call
 * per poll adds, on this machine, in the shape of the sustained scenario. Nothing of ours runs:
 * `BENCH_FLOOR=bare` holds each poll until a burst answers it; `BENCH_FLOOR=redis` first runs, per
 * poll, a script doing what the poll script does (read the queue's fields, mark it used, trim,
 * read its events, record the waiter), through ioredis with auto-pipelining as the tier does.
 *
 *   npx tsx bench/poll-floor.ts            # both, 500 clients, 20 bursts/s of 50 answers, 30 s
 *   BENCH_CLIENTS=2000 BENCH_FLOOR=redis npx tsx bench/poll-floor.ts
 *
 * The answers carry a message event of a realistic size and the headers ours carry. CPU is the
 * server process's user and system time over the measured seconds, divided by the answers.
 */
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { HttpConnection } from './http-client';
import { cpuMsOf } from './realtime-clients';
import { answerAsOurs, EVENT, floorAuthorization, POLL_LIKE } from './floor-poll-shape';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 500);
const BURSTS_PER_SECOND = Number(process.env.BENCH_RATE ?? 20);
const BURST = Number(process.env.BENCH_CHANNEL_SIZE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WARMUP_SECONDS = 5;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

function serve(mode: string): void {
  const redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
  redis.defineCommand('floorPoll', { numberOfKeys: 2, lua: POLL_LIKE });
  const poll = (redis as unknown as { floorPoll(...a: string[]): Promise<unknown> }).floorPoll.bind(
    redis,
  );
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (mode === 'bare') {
      held.push(res);
      return;
    }
    const queue = /queue_id=([^&]+)/.exec(req.url ?? '')?.[1] ?? 'none';
    void poll(`floor:q:${queue}`, `floor:e:${queue}`, String(Date.now())).then(() =>
      held.push(res),
    );
  });
  // 50 polls answered at once, as a message to a 50-member channel answers its members' polls.
  setInterval(() => {
    for (let i = 0; i < BURST && held.length; i++) {
      const at = Math.floor(Math.random() * held.length);
      const res = held[at];
      held[at] = held[held.length - 1];
      held.pop();
      const json = JSON.stringify({ result: 'success', msg: '', events: [EVENT], queue_id: 'q' });
      answerAsOurs(res, json);
    }
  }, 1000 / BURSTS_PER_SECOND);
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
}

async function measure(mode: string): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [...process.execArgv, __filename, '--serve', mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  let answers = 0;
  let running = true;
  const loops = Array.from({ length: CLIENTS }, async (_, i) => {
    const connection = new HttpConnection('127.0.0.1', port);
    let last = -1;
    while (running) {
      await connection.get(`/api/v1/events?queue_id=${i}&last_event_id=${last}`, {
        Host: 'localhost',
        Authorization: floorAuthorization(i),
        'User-Agent': 'ZulipPython/0.9.0',
      });
      last++;
      answers++;
    }
    connection.close();
  });
  await new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000));
  const cpuBefore = cpuMsOf(child.pid!);
  const answersBefore = answers;
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const cpu = cpuMsOf(child.pid!) - cpuBefore;
  const measured = answers - answersBefore;
  running = false;
  child.kill('SIGKILL');
  await Promise.allSettled(loops);
  return {
    mode,
    clients: CLIENTS,
    answersPerSecond: Math.round(measured / SECONDS),
    serverCpuShare: Math.round(cpu / SECONDS / 10) / 100,
    cpuMsPerAnswer: Math.round((cpu / measured) * 1000) / 1000,
  };
}

async function main(): Promise<void> {
  const modes = process.env.BENCH_FLOOR ? [process.env.BENCH_FLOOR] : ['bare', 'redis'];
  for (const mode of modes) console.log(JSON.stringify(await measure(mode)));
}

if (process.argv[2] === '--serve') serve(process.argv[3]);
else void main();
