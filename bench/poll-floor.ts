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
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { HttpConnection } from './http-client';
import { EVENT, POLL_LIKE } from './floor-poll-shape';

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
      res.writeHead(200, [
        'Content-Type',
        'application/json; charset=utf-8',
        'Content-Length',
        String(Buffer.byteLength(json)),
        'X-Request-Id',
        crypto.randomUUID(),
        'X-Content-Type-Options',
        'nosniff',
        'X-RateLimit-Limit',
        '200',
        'X-RateLimit-Remaining',
        '199',
        'X-RateLimit-Reset',
        '1795781145',
      ]);
      res.end(json);
    }
  }, 1000 / BURSTS_PER_SECOND);
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
}

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
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
        Authorization: `Basic ${Buffer.from(`user${i}@example.com:0123456789abcdef0123456789abcdef`).toString('base64')}`,
        'User-Agent': 'ZulipPython/0.9.0',
      });
      last++;
      answers++;
    }
    connection.close();
  });
  await new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000));
  const cpuBefore = cpuMs(child.pid!);
  const answersBefore = answers;
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const cpu = cpuMs(child.pid!) - cpuBefore;
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
