/**
 * Chaos tests on the local cluster (deploy/local/cluster.ts), under load, judged from the
 * clients' side: `npm run chaos [-- scenario ...]` (default: every scenario). Each scenario runs
 * sustained channel sends through nginx while long-polling clients (two queues per user) re-poll
 * through nginx from the last event id they saw, injects its fault, then checks every queue
 * against the messages PostgreSQL committed: each exactly once, event ids without gaps, each
 * sender's messages in the order sent. One JSON line per scenario on stdout; docs/reliability.md
 * records the last results. A scratch database (chat_chaos) and Redis prefix (chaos:) are wiped
 * first.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../../libs/config';
import { bullPrefix } from '../../libs/jobs';
import { createRealm } from '../../libs/domain/realms/create-realm';
import { createUser } from '../../libs/domain/users/create-user';
import { Role } from '../../libs/domain/users/roles';
import { createAppContext } from '../../libs/runtime/context';
import { startCluster, type Cluster } from './cluster';

const BASE_PORT = 19580;
const DATABASE = 'chat_chaos';
const USERS = 8;
/** Send loops, each sequential (so each one's messages have an order to keep), over the users. */
const SENDERS = 12;
const TARGET_RATE = 60; // messages per second, over all senders
const SECRET_KEY = 'chaos-local-cluster-secret-key';
const WEBHOOK_PORT = 19650;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface User {
  id: number;
  auth: string;
}

interface QueueState {
  user: User;
  queueId: string;
  lastEventId: number;
  messageIds: number[];
  eventIdGaps: number;
  /** Polls that failed as the client saw them (nginx retries some failures itself), by kind. */
  pollErrors: Map<string, number>;
  /** When the last message event arrived. */
  lastMessageAt: number;
  badQueue: boolean;
}

interface Load {
  sent: { id: number; sender: number; seq: number }[];
  sendFailures: string[];
  queues: QueueState[];
  stop(): Promise<void>;
}

interface ScenarioResult {
  scenario: string;
  seconds: number;
  sent: number;
  msgPerSecond: number;
  sendFailures: number;
  queues: number;
  committed: number;
  deliveriesExpected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  eventIdGaps: number;
  clientPollErrors: Record<string, number>;
  badEventQueueId: number;
  catchUpMs: number;
  notes: string[];
}

class Chaos {
  constructor(
    readonly cluster: Cluster,
    readonly users: User[],
    readonly channelId: number,
    readonly db: Client,
  ) {}

  async api(pathAndQuery: string, user: User, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.cluster.url}/api/v1${pathAndQuery}`, {
      ...init,
      headers: { Authorization: user.auth, ...(init.headers as Record<string, string>) },
    });
  }

  form(fields: Record<string, string>): RequestInit {
    return {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    };
  }

  async register(user: User): Promise<QueueState> {
    const res = await this.api('/register', user, this.form({ event_types: '["message"]' }));
    if (res.status !== 200) throw new Error(`register: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { queue_id: string; last_event_id: number };
    return {
      user,
      queueId: body.queue_id,
      lastEventId: body.last_event_id,
      messageIds: [],
      eventIdGaps: 0,
      pollErrors: new Map(),
      lastMessageAt: 0,
      badQueue: false,
    };
  }

  /** Long-polls until `done()` and the queue is drained; re-polls after any failure. */
  async pollLoop(q: QueueState, done: () => boolean): Promise<void> {
    while (!q.badQueue) {
      if (done()) {
        // Drained: a non-blocking poll finds nothing after the last id.
        const res = await this.api(
          `/events?queue_id=${q.queueId}&last_event_id=${q.lastEventId}&dont_block=true`,
          q.user,
        ).catch(() => null);
        if (res?.status === 200) {
          const body = (await res.json()) as { events: unknown[] };
          if (body.events.length === 0) return;
          this.take(q, body.events as Event[]);
          continue;
        }
      }
      let res: Response;
      try {
        res = await this.api(
          `/events?queue_id=${q.queueId}&last_event_id=${q.lastEventId}`,
          q.user,
        );
      } catch (err) {
        countError(q, err instanceof Error ? `${err.message} ${String(err.cause ?? '')}` : 'error');
        await sleep(200);
        continue;
      }
      if (res.status === 200) {
        this.take(q, ((await res.json()) as { events: Event[] }).events);
      } else {
        const text = await res.text();
        if (text.includes('BAD_EVENT_QUEUE_ID')) q.badQueue = true;
        else {
          countError(q, `${res.status} ${text.slice(0, 80)}`);
          await sleep(200);
        }
      }
    }
  }

  take(q: QueueState, events: Event[]): void {
    for (const e of events) {
      if (e.id <= q.lastEventId) continue; // re-sent after a lost answer: already counted
      if (e.id !== q.lastEventId + 1) q.eventIdGaps++;
      q.lastEventId = e.id;
      if (e.type === 'message' && e.message) {
        q.messageIds.push(e.message.id);
        q.lastMessageAt = Date.now();
      }
    }
  }

  /** Senders at TARGET_RATE in total and every queue's poller, until `stop()`. */
  async startLoad(tag: string): Promise<Load> {
    const queues = await Promise.all(
      this.users.flatMap((u) => [this.register(u), this.register(u)]),
    );
    let sending = true;
    let sendersDone = false;
    const sent: Load['sent'] = [];
    const sendFailures: string[] = [];
    const interval = (1000 * SENDERS) / TARGET_RATE;
    const senders = [...Array(SENDERS).keys()].map(async (sender) => {
      const user = this.users[sender % this.users.length];
      for (let seq = 0; sending; seq++) {
        const started = Date.now();
        try {
          const res = await this.api(
            '/messages',
            user,
            this.form({
              type: 'stream',
              to: String(this.channelId),
              topic: tag,
              content: `${tag} s${sender} n${seq}`,
            }),
          );
          const body = (await res.json()) as { id?: number; msg?: string };
          if (res.status === 200 && body.id) sent.push({ id: body.id, sender, seq });
          else sendFailures.push(`${res.status} ${body.msg ?? ''}`);
        } catch (err) {
          sendFailures.push(err instanceof Error ? err.message : String(err));
        }
        await sleep(Math.max(0, interval - (Date.now() - started)));
      }
    });
    const pollers = queues.map((q) => this.pollLoop(q, () => sendersDone));
    return {
      sent,
      sendFailures,
      queues,
      async stop() {
        sending = false;
        await Promise.all(senders);
        sendersDone = true;
        await Promise.all(pollers);
      },
    };
  }

  /** Compares every queue with what PostgreSQL committed under `tag`. */
  async judge(
    scenario: string,
    tag: string,
    load: Load,
    seconds: number,
    catchUpMs: number,
    notes: string[],
  ): Promise<ScenarioResult> {
    const { rows } = await this.db.query<{ id: number }>(
      `SELECT m.id FROM messages m JOIN recipients r ON r.id = m.recipient_id
       WHERE r.type = 2 AND r.type_id = $1 AND m.subject = $2 ORDER BY m.id`,
      [this.channelId, tag],
    );
    const committed = new Set(rows.map((r) => r.id));
    const senderOf = new Map(load.sent.map((s) => [s.id, s]));
    let delivered = 0;
    let missing = 0;
    let duplicates = 0;
    let outOfOrder = 0;
    for (const q of load.queues) {
      const seen = new Set<number>();
      const lastSeq = new Map<number, number>();
      for (const id of q.messageIds) {
        if (!committed.has(id)) continue;
        if (seen.has(id)) duplicates++;
        seen.add(id);
        const s = senderOf.get(id);
        if (s) {
          if ((lastSeq.get(s.sender) ?? -1) > s.seq) outOfOrder++;
          lastSeq.set(s.sender, s.seq);
        }
      }
      delivered += seen.size;
      if (!q.badQueue) missing += [...committed].filter((id) => !seen.has(id)).length;
    }
    return {
      scenario,
      seconds: Math.round(seconds * 10) / 10,
      sent: load.sent.length,
      msgPerSecond: Math.round((load.sent.length / seconds) * 10) / 10,
      sendFailures: load.sendFailures.length,
      queues: load.queues.length,
      committed: committed.size,
      deliveriesExpected: committed.size * load.queues.filter((q) => !q.badQueue).length,
      delivered,
      missing,
      duplicates,
      outOfOrder,
      eventIdGaps: load.queues.reduce((n, q) => n + q.eventIdGaps, 0),
      clientPollErrors: Object.fromEntries(
        [...new Set(load.queues.flatMap((q) => [...q.pollErrors.keys()]))].map((kind) => [
          kind,
          load.queues.reduce((n, q) => n + (q.pollErrors.get(kind) ?? 0), 0),
        ]),
      ),
      badEventQueueId: load.queues.filter((q) => q.badQueue).length,
      catchUpMs,
      notes: [...notes, ...new Set(load.sendFailures)].slice(0, 8),
    };
  }

  /** Runs `fault` during `seconds` of load, then lets every queue drain. */
  async run(
    scenario: string,
    seconds: number,
    fault: (notes: string[]) => Promise<void>,
  ): Promise<ScenarioResult> {
    const tag = `${scenario}-${Date.now()}`;
    const notes: string[] = [];
    const load = await this.startLoad(tag);
    const started = Date.now();
    const faultDone = fault(notes);
    await sleep(seconds * 1000);
    await faultDone;
    const loadSeconds = (Date.now() - started) / 1000;
    const stopping = Date.now();
    await Promise.race([
      load.stop(),
      sleep(60_000).then(() => notes.push('queues not drained within 60 s')),
    ]);
    // From the last send to the last message reaching a queue.
    const catchUpMs = Math.max(0, ...load.queues.map((q) => q.lastMessageAt - stopping));
    // A process that died on its own is a finding; restart it so the next scenario starts whole.
    for (const p of this.cluster.processes) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) {
        notes.push(`${p.name} died on its own (${await p.exited}); see ${p.logFile}`);
        await this.cluster.restart(p.name);
      }
    }
    return this.judge(scenario, tag, load, loadSeconds, catchUpMs, notes);
  }
}

function countError(q: QueueState, kind: string): void {
  q.pollErrors.set(kind, (q.pollErrors.get(kind) ?? 0) + 1);
}

interface Event {
  id: number;
  type: string;
  message?: { id: number };
}

interface ScheduledResult {
  scenario: string;
  scheduled: number;
  delivered: number;
  missing: number;
  duplicates: number;
  rowsMarkedDelivered: number;
  lastDeliveryAfterDueS: number;
  notes: string[];
}

/**
 * 1,000 scheduled messages due at the same instant on 2 workers; worker-1 is killed -9 one
 * second after they fall due. Each must be posted exactly once.
 */
async function scheduledKill(c: Chaos): Promise<ScheduledResult> {
  const tag = `scheduled-kill-${Date.now()}`;
  const total = 1000;
  const notes: string[] = [];
  const due = Math.ceil(Date.now() / 1000) + 45;
  let next = 0;
  const failures: string[] = [];
  await Promise.all(
    [...Array(8).keys()].map(async (loop) => {
      for (let n = next++; n < total; n = next++) {
        const res = await c.api(
          '/scheduled_messages',
          c.users[loop % c.users.length],
          c.form({
            type: 'stream',
            to: String(c.channelId),
            topic: tag,
            content: `${tag} n${n}`,
            scheduled_delivery_timestamp: String(due),
          }),
        );
        if (res.status !== 200) failures.push(`${res.status} ${(await res.text()).slice(0, 80)}`);
      }
    }),
  );
  if (failures.length) notes.push(`${failures.length} not scheduled: ${failures[0]}`);
  if (Date.now() / 1000 > due) notes.push('scheduling took longer than the lead time');
  await sleep(Math.max(0, due * 1000 - Date.now()) + 1000);
  notes.push(`worker-1 killed: ${await c.cluster.kill('worker-1', 'SIGKILL')}`);
  const count = async () =>
    (
      await c.db.query<{ n: string; distinct: string; last: Date | null }>(
        `SELECT count(*) AS n, count(DISTINCT content) AS distinct, max(date_sent) AS last
         FROM messages WHERE subject = $1`,
        [tag],
      )
    ).rows[0];
  const deadline = Date.now() + 120_000;
  let seen = await count();
  while (Number(seen.distinct) < total - failures.length && Date.now() < deadline) {
    await sleep(1000);
    seen = await count();
  }
  // A duplicate would come from a job run twice; give a retried job time to show it.
  await sleep(5000);
  seen = await count();
  await c.cluster.restart('worker-1');
  const marked = await c.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM scheduled_messages s JOIN messages m ON m.id = s.delivered_message_id
     WHERE s.delivered AND m.subject = $1`,
    [tag],
  );
  return {
    scenario: 'scheduled-kill',
    scheduled: total - failures.length,
    delivered: Number(seen.distinct),
    missing: total - failures.length - Number(seen.distinct),
    duplicates: Number(seen.n) - Number(seen.distinct),
    rowsMarkedDelivered: Number(marked.rows[0].n),
    lastDeliveryAfterDueS: seen.last
      ? Math.round((seen.last.getTime() / 1000 - due) * 10) / 10
      : -1,
    notes,
  };
}

interface WebhookResult {
  scenario: string;
  messages: number;
  calledOnce: number;
  calledTwice: number;
  calledMore: number;
  notCalled: number;
  notes: string[];
}

/**
 * An outgoing-webhook bot whose server answers after 3 s; 10 direct messages to it, and the
 * worker holding some of the calls is killed -9 in the middle of them. Each call may be repeated
 * at most once, with the same message (Zulip's payload names the message; that is the key a bot
 * can deduplicate on).
 */
async function webhookKill(c: Chaos): Promise<WebhookResult> {
  const notes: string[] = [];
  const calls = new Map<number, number>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { message: { id: number } }).message.id;
      calls.set(id, (calls.get(id) ?? 0) + 1);
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"response_not_required": true}');
      }, 3000);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(WEBHOOK_PORT, '127.0.0.1', resolve));
  try {
    const made = await c.api(
      '/bots',
      c.users[0],
      c.form({
        full_name: 'Slow bot',
        short_name: `slow${Date.now()}`,
        bot_type: '3',
        payload_url: `http://127.0.0.1:${WEBHOOK_PORT}/`,
        interface: '1',
      }),
    );
    if (made.status !== 200) throw new Error(`POST /bots: ${await made.text()}`);
    const botId = ((await made.json()) as { user_id: number }).user_id;
    const sent: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await c.api(
        '/messages',
        c.users[1],
        c.form({ type: 'direct', to: JSON.stringify([botId]), content: `call ${i}` }),
      );
      sent.push(((await res.json()) as { id: number }).id);
    }
    // In the middle of the calls: both workers hold some, each waiting on the slow bot.
    const deadline = Date.now() + 40_000;
    while (calls.size < sent.length && Date.now() < deadline) await sleep(100);
    await sleep(1000);
    notes.push(
      `${calls.size} calls in flight; worker-1 killed: ${await c.cluster.kill('worker-1', 'SIGKILL')}`,
    );
    // worker-1's jobs come back once their lock expired (30 s) and a stalled check (every 30 s) saw it.
    const settle = Date.now() + 150_000;
    let quietSince = Date.now();
    let total = [...calls.values()].reduce((a, b) => a + b, 0);
    while (Date.now() < settle && Date.now() - quietSince < 75_000) {
      await sleep(1000);
      const now = [...calls.values()].reduce((a, b) => a + b, 0);
      if (now !== total) quietSince = Date.now();
      total = now;
    }
    await c.cluster.restart('worker-1');
    const counts = sent.map((id) => calls.get(id) ?? 0);
    return {
      scenario: 'webhook-kill',
      messages: sent.length,
      calledOnce: counts.filter((n) => n === 1).length,
      calledTwice: counts.filter((n) => n === 2).length,
      calledMore: counts.filter((n) => n > 2).length,
      notCalled: counts.filter((n) => n === 0).length,
      notes,
    };
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

const scenarios: Record<
  string,
  (c: Chaos) => Promise<ScenarioResult | ScheduledResult | WebhookResult>
> = {
  'webhook-kill': webhookKill,
  'scheduled-kill': scheduledKill,
  /** kill -9 one events replica during sends; it comes back 8 s later. */
  'events-kill': (c) =>
    c.run('events-kill', 20, async (notes) => {
      await sleep(6000);
      notes.push(`events-1 killed: ${await c.cluster.kill('events-1', 'SIGKILL')}`);
      await sleep(8000);
      await c.cluster.restart('events-1');
      notes.push('events-1 restarted');
    }),
  /** Restart the events tier one replica at a time with SIGTERM. */
  'events-rolling': (c) =>
    c.run('events-rolling', 25, async (notes) => {
      await sleep(5000);
      for (const name of ['events-1', 'events-2']) {
        const started = Date.now();
        notes.push(`${name} SIGTERM: ${await c.cluster.kill(name, 'SIGTERM')}`);
        await c.cluster.restart(name);
        notes.push(`${name} back in ${Date.now() - started} ms`);
        await sleep(3000);
      }
    }),
};

async function main() {
  const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(scenarios);
  for (const name of chosen) if (!scenarios[name]) throw new Error(`unknown scenario ${name}`);
  const admin = new Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
  const env = {
    DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/${DATABASE}`,
    REDIS_URL: 'redis://127.0.0.1:6379/0',
    REDIS_PREFIX: 'chaos:',
    EXTERNAL_HOST: `127.0.0.1:${BASE_PORT}`,
    SECRET_KEY,
    HEARTBEAT_SECONDS: '10',
    // The slow bot of webhook-kill listens on loopback.
    OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // Requests of the test's own few users at 60 msg/s are not abuse.
    RATE_LIMIT_API_REQUESTS: '1000000',
  };
  const ctx = createAppContext(loadConfig({ ...env, LOG_LEVEL: 'warn' }));
  // BullMQ's keys too: a job id left from a run before (message and bot ids start over in the
  // new database) would make BullMQ drop the new job as a duplicate.
  const stale = [
    ...(await ctx.redis.keys('chaos:*')),
    ...(await ctx.redis.keys(`${bullPrefix('chaos:')}*`)),
  ];
  if (stale.length) await ctx.redis.del(...stale);
  const dir = path.resolve(__dirname, '../../var/chaos');
  mkdirSync(dir, { recursive: true });
  const cluster = await startCluster({ dir, basePort: BASE_PORT, env });
  const db = new Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  try {
    const realm = await createRealm(ctx, {
      stringId: '',
      name: 'Chaos',
      owner: { email: 'owner@chaos.example', fullName: 'Owner', password: null },
    });
    const users: User[] = [];
    for (let i = 0; i < USERS; i++) {
      const made = await createUser(ctx, {
        realm: realm.realm,
        email: `user${i}@chaos.example`,
        fullName: `User ${i}`,
        role: Role.MEMBER,
        password: null,
      });
      const auth = `Basic ${Buffer.from(`${made.user.email}:${made.apiKey}`).toString('base64')}`;
      users.push({ id: made.user.id, auth });
    }
    const setup = new Chaos(cluster, users, 0, db);
    const sub = await setup.api(
      '/users/me/subscriptions',
      users[0],
      setup.form({
        subscriptions: JSON.stringify([{ name: 'chaos' }]),
        principals: JSON.stringify(users.map((u) => u.id)),
      }),
    );
    if (sub.status !== 200) throw new Error(`subscribe: ${await sub.text()}`);
    const channel = await ctx.db.stream.findFirstOrThrow({ where: { name: 'chaos' } });
    const run = new Chaos(cluster, users, channel.id, db);
    for (const name of chosen) {
      process.stdout.write(`${JSON.stringify(await scenarios[name](run))}\n`);
    }
  } finally {
    await db.end();
    await cluster.stop();
    await ctx.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
