/**
 * The floor under the whole sustained scenario's CPU per delivery (not a test): what node's HTTP
 * server, `pg` and ioredis alone spend to carry channel messages from their sends to their
 * members' polls, in the shape of ours, with nothing of ours running. bench/poll-floor.ts is the
 * polls' part of it; this adds the send and the dispatch.
 *
 *   npx tsx bench/flow-floor.ts      # 2,000 clients in channels of 50, 20 msg/s, 30 s
 *
 * One server process (`npm start` runs one per core; one process is the lower bound, with no
 * wake-ups between processes):
 * - `POST /api/v1/messages` reads the form, finds the channel's members in memory, writes the
 *   message and its members' rows in one statement (tables of a scratch schema), appends the
 *   event to one Redis stream and answers with the message's id;
 * - a dispatch loop reads that stream through a consumer group, appends each event to its
 *   members' queues in one script call, acknowledges it and answers the members' waiting polls;
 * - `GET /api/v1/events` knows the caller by its Authorization header (a map: a cached
 *   credential), runs poll-floor's poll script and answers at once when the queue holds events
 *   past `last_event_id`, else holds the poll.
 * Clients poll as bench/poll-floor.ts's do; one sender sends BENCH_RATE messages a second, round
 * robin over the channels. CPU is the server process's user and system time over the measured
 * seconds, divided by the events its clients received in them: the figure bench/realtime-load.ts
 * reports as `cpuMsPerDelivery` (which likewise leaves PostgreSQL and Redis out).
 */
import { fork } from 'node:child_process';
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { Redis } from 'ioredis';
import { PG_BASE_URL } from '../test/databases';
import { HttpConnection } from './http-client';
import { answerAsOurs, EVENT, floorAuthorization, POLL_LIKE } from './floor-poll-shape';
import { cpuMsOf } from './realtime-clients';
import { percentile, round, sleep } from './scratch-world';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2000);
const CHANNEL_SIZE = Number(process.env.BENCH_CHANNEL_SIZE ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WARMUP_SECONDS = 5;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCHEMA = `flow_floor_${process.pid}`;
const PREFIX = `flowfloor:${process.pid}:`;
const STREAM = `${PREFIX}stream`;

const channelCount = Math.ceil(CLIENTS / CHANNEL_SIZE);

/** Appends one event to every queue named in KEYS, as the append script does per message. */
const APPEND_LIKE = `
for i = 1, #KEYS do
  redis.call('RPUSH', KEYS[i], ARGV[1])
  redis.call('PEXPIRE', KEYS[i], 600000)
end
return #KEYS
`;

interface Queue {
  events: string[];
  firstId: number;
  held: { res: ServerResponse; lastEventId: number } | null;
}

/** Answers a poll with the queue's events past `lastEventId`; false when it has none. */
function answerPoll(queue: Queue, res: ServerResponse, lastEventId: number): boolean {
  const from = lastEventId + 1 - queue.firstId;
  if (from >= queue.events.length) return false;
  const events: string[] = [];
  for (let i = Math.max(0, from); i < queue.events.length; i++) {
    events.push(`{"id":${queue.firstId + i},${queue.events[i]!.slice(1)}`);
  }
  // What the client acknowledged is not asked for again.
  queue.events.splice(0, Math.max(0, from));
  queue.firstId += Math.max(0, from);
  answerAsOurs(res, `{"result":"success","msg":"","events":[${events.join(',')}],"queue_id":"q"}`);
  return true;
}

async function serve(): Promise<void> {
  const pool = new Pool({ connectionString: `${PG_BASE_URL}/postgres`, max: 10 });
  await pool.query(`CREATE SCHEMA ${SCHEMA}`);
  await pool.query(`CREATE TABLE ${SCHEMA}.messages (id bigserial PRIMARY KEY, sender_id int,
    channel int, subject text, content text, rendered_content text, date_sent timestamptz)`);
  await pool.query(`CREATE TABLE ${SCHEMA}.user_messages (user_id int, message_id bigint,
    flags int, PRIMARY KEY (user_id, message_id))`);
  const redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
  redis.defineCommand('floorPoll', { numberOfKeys: 2, lua: POLL_LIKE });
  redis.defineCommand('floorAppend', { lua: APPEND_LIKE });
  const scripts = redis as unknown as {
    floorPoll(...a: string[]): Promise<unknown>;
    floorAppend(n: number, ...a: string[]): Promise<unknown>;
  };
  await redis.xgroup('CREATE', STREAM, 'dispatch', '$', 'MKSTREAM');
  const reader = new Redis(REDIS_URL);

  const userByAuth = new Map<string, number>();
  const queues: Queue[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    userByAuth.set(floorAuthorization(i), i);
    queues.push({ events: [], firstId: 0, held: null });
  }
  const members = Array.from({ length: channelCount }, (_, c) =>
    Array.from({ length: CHANNEL_SIZE }, (_, j) => c * CHANNEL_SIZE + j).filter((u) => u < CLIENTS),
  );

  const send = async (sender: number, form: URLSearchParams): Promise<string> => {
    const channel = Number(/^channel-(\d+)$/.exec(form.get('to') ?? '')?.[1]);
    const recipients = members[channel] ?? [];
    const content = form.get('content') ?? '';
    const { rows } = await pool.query<{ id: string }>(
      `WITH m AS (INSERT INTO ${SCHEMA}.messages
           (sender_id, channel, subject, content, rendered_content, date_sent)
         VALUES ($1, $2, $3, $4, $5, now()) RETURNING id),
       um AS (INSERT INTO ${SCHEMA}.user_messages (user_id, message_id, flags)
         SELECT u, (SELECT id FROM m), 0 FROM unnest($6::int[]) u)
       SELECT id FROM m`,
      [sender, channel, form.get('topic'), content, `<p>${content}</p>`, recipients],
    );
    const id = Number(rows[0]!.id);
    // Without its id, which each queue gives it (`answerPoll`).
    const event = JSON.stringify({
      type: EVENT.type,
      message: { ...EVENT.message, id, sender_id: sender, content: `<p>${content}</p>` },
      flags: EVENT.flags,
    });
    await redis.xadd(STREAM, '*', 'channel', String(channel), 'event', event);
    return `{"result":"success","msg":"","id":${id}}`;
  };

  const server = createServer((req, res) => {
    const user = userByAuth.get(req.headers.authorization ?? '');
    if (user === undefined) return void res.writeHead(401).end();
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        send(user, new URLSearchParams(Buffer.concat(chunks).toString())).then(
          (body) => answerAsOurs(res, body),
          (err: Error) => res.writeHead(500).end(err.message),
        );
      });
      return;
    }
    const lastEventId = Number(/last_event_id=(-?\d+)/.exec(req.url ?? '')?.[1] ?? -1);
    const queue = queues[user]!;
    void scripts
      .floorPoll(`${PREFIX}q:${user}`, `${PREFIX}e:${user}`, String(Date.now()))
      .then(() => {
        if (!answerPoll(queue, res, lastEventId)) queue.held = { res, lastEventId };
      });
  });

  const dispatch = async () => {
    while (reader.status !== 'end') {
      const read = (await reader
        .xreadgroup(
          'GROUP',
          'dispatch',
          'floor',
          'COUNT',
          100,
          'BLOCK',
          1000,
          'STREAMS',
          STREAM,
          '>',
        )
        .catch(() => null)) as [string, [string, string[]][]][] | null;
      for (const [id, fields] of read?.[0]?.[1] ?? []) {
        const recipients = members[Number(fields[1])] ?? [];
        const event = fields[3]!;
        await scripts.floorAppend(
          recipients.length,
          ...recipients.map((u) => `${PREFIX}e:${u}`),
          event,
        );
        await redis.xack(STREAM, 'dispatch', id);
        for (const u of recipients) {
          const queue = queues[u]!;
          queue.events.push(event);
          const held = queue.held;
          if (held && answerPoll(queue, held.res, held.lastEventId)) queue.held = null;
        }
      }
    }
  };

  server.listen(0, '127.0.0.1', () => {
    process.send?.((server.address() as AddressInfo).port);
    void dispatch();
  });
  process.on('message', () => {
    void (async () => {
      reader.disconnect();
      await pool.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
      await redis.del(STREAM);
      process.exit(0);
    })();
  });
}

async function main(): Promise<void> {
  const child = fork(__filename, ['--serve'], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once('message', resolve));
  let delivered = 0;
  let running = true;
  const loops = Array.from({ length: CLIENTS }, async (_, i) => {
    const connection = new HttpConnection('127.0.0.1', port);
    let last = -1;
    while (running) {
      const { body } = await connection.get(`/api/v1/events?queue_id=${i}&last_event_id=${last}`, {
        Host: 'localhost',
        Authorization: floorAuthorization(i),
        'User-Agent': 'ZulipPython/0.9.0',
      });
      const ids = [...body.matchAll(/\{"id":(\d+),"type"/g)].map((m) => Number(m[1]));
      if (ids.length) last = ids[ids.length - 1]!;
      delivered += ids.length;
    }
    connection.close();
  });
  // Their polls fail when the server stops.
  const pollsEnded = Promise.allSettled(loops);
  const agent = new Agent({ keepAlive: true });
  const sendMs: number[] = [];
  const sendOne = (k: number) =>
    new Promise<void>((resolve, reject) => {
      const channel = k % channelCount;
      const sender = Math.min(CLIENTS - 1, channel * CHANNEL_SIZE + (k % CHANNEL_SIZE));
      const started = performance.now();
      const body = new URLSearchParams({
        type: 'stream',
        to: `channel-${channel}`,
        topic: 'load',
        content: `hello m${k} from ${sender}`,
      }).toString();
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/messages',
          agent,
          headers: {
            Authorization: floorAuthorization(sender),
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            sendMs.push(performance.now() - started);
            if (res.statusCode === 200) resolve();
            else reject(new Error(`send: ${res.statusCode}`));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const sending = (async () => {
    const sends: Promise<void>[] = [];
    const started = performance.now();
    for (let k = 0; k < RATE * (WARMUP_SECONDS + SECONDS); k++) {
      await sleep(Math.max(0, started + (k * 1000) / RATE - performance.now()));
      sends.push(sendOne(k));
    }
    await Promise.all(sends);
  })();
  await sleep(WARMUP_SECONDS * 1000);
  const cpuBefore = cpuMsOf(child.pid!);
  const deliveredBefore = delivered;
  await sleep(SECONDS * 1000);
  const cpu = cpuMsOf(child.pid!) - cpuBefore;
  const measured = delivered - deliveredBefore;
  await sending;
  running = false;
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  await pollsEnded;
  agent.destroy();
  const sorted = sendMs.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      clients: CLIENTS,
      channelSize: CHANNEL_SIZE,
      rate: RATE,
      deliveriesPerSecond: Math.round(measured / SECONDS),
      serverCpuShare: Math.round(cpu / SECONDS / 10) / 100,
      cpuMsPerDelivery: Math.round((cpu / measured) * 1000) / 1000,
      sendMs: { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) },
    }),
  );
}

if (process.argv[2] === '--serve') void serve();
else void main();
