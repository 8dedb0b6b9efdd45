import { Redis } from 'ioredis';
import request from 'supertest';
import { eventKeys } from '../../libs/events/keys';
import { isCluster } from '../../libs/redis/connect';
import { keySlot } from '../../libs/redis/key-slot';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { startTestContext, TEST_REDIS_CLUSTER_NODES, type TestContext } from '../harness';
import { startTier, type Tier } from './processes';

/**
 * Redis Cluster failover (issue 13): an api and an events process on a 6-node cluster
 * (scripts/redis-cluster.sh); clients long-poll while direct messages are sent to them, and the
 * master holding the first client's queue is killed with SIGKILL mid-way. After its replica takes
 * over, each client either keeps receiving its events, or gets BAD_EVENT_QUEUE_ID, re-registers
 * and reads what it missed through GET /messages, as Zulip clients do. Every message committed to
 * PostgreSQL must reach every client one way or the other.
 *
 * It kills a node, so CI runs it after the other suites; it needs TEST_REDIS_CLUSTER_NODES.
 */
const onCluster = TEST_REDIS_CLUSTER_NODES ? describe : describe.skip;
jest.setTimeout(150_000);

const SENDS = 80;
const KILL_AFTER = 20;
const SEND_GAP_MS = 40;

interface Message {
  id: number;
}

class Client {
  queueId = '';
  last = -1;
  readonly seen = new Set<number>();
  reRegistrations = 0;
  badQueueErrors = 0;
  /** Milliseconds from send to receipt, for events received through the queue. */
  readonly delays: number[] = [];

  constructor(
    readonly user: TestUser,
    private readonly host: string,
  ) {}

  async register(api: Tier): Promise<void> {
    const res = await request(api.url)
      .post('/api/v1/register')
      .set('Host', this.host)
      .set('Authorization', this.user.auth)
      .type('form')
      .send({ event_types: JSON.stringify(['message']), apply_markdown: 'false' });
    if (res.status !== 200) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
    this.queueId = res.body.queue_id as string;
    this.last = res.body.last_event_id as number;
  }

  /** What a client does after re-registering: reads the newest messages. */
  async catchUp(api: Tier): Promise<void> {
    const res = await request(api.url)
      .get('/api/v1/messages')
      .set('Host', this.host)
      .set('Authorization', this.user.auth)
      .query({ anchor: 'newest', num_before: SENDS + 10, num_after: 0, apply_markdown: 'false' });
    if (res.status !== 200) throw new Error(`messages: ${res.status} ${JSON.stringify(res.body)}`);
    for (const m of res.body.messages as Message[]) this.seen.add(m.id);
  }

  /** Long-polls until `until()` says stop; re-registers on BAD_EVENT_QUEUE_ID. */
  async run(api: Tier, events: Tier, sentAt: Map<number, number>, until: () => boolean) {
    while (!until()) {
      let res;
      try {
        res = await request(events.url)
          .get('/api/v1/events')
          .set('Host', this.host)
          .set('Authorization', this.user.auth)
          .query({ queue_id: this.queueId, last_event_id: this.last })
          .timeout({ response: 15_000 });
      } catch {
        await sleep(200);
        continue;
      }
      if (res.status === 400 && res.body.code === 'BAD_EVENT_QUEUE_ID') {
        this.badQueueErrors++;
        await this.register(api).then(
          () => this.catchUp(api),
          () => sleep(200),
        );
        this.reRegistrations++;
        continue;
      }
      if (res.status !== 200) {
        await sleep(200);
        continue;
      }
      for (const e of res.body.events as { id: number; type: string; message?: Message }[]) {
        this.last = Math.max(this.last, e.id);
        if (e.type !== 'message' || !e.message) continue;
        this.seen.add(e.message.id);
        const at = sentAt.get(e.message.id);
        if (at !== undefined) this.delays.push(Date.now() - at);
      }
    }
  }
}

const sleep = (ms: number, options: { unref?: boolean } = {}) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (options.unref) timer.unref();
  });

/** Milliseconds from `since` until a master other than `victim` serves `slot` (30 s at most). */
async function promotedAfter(survivor: Redis, victim: string, slot: number, since: number) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const nodes = (await survivor.cluster('NODES')) as string;
    const owner = nodes.split('\n').find((line) => {
      const fields = line.split(' ');
      if (!fields[2]?.includes('master') || fields[2].includes('fail')) return false;
      return fields.slice(8).some((range) => {
        const [from, to = from] = range.split('-').map(Number);
        return slot >= from && slot <= to;
      });
    });
    const address = owner?.split(' ')[1].split('@')[0];
    if (address && address !== victim) return Date.now() - since;
    await sleep(50);
  }
  return null;
}

onCluster('Redis Cluster failover', () => {
  let t: TestContext;
  let org: TestRealm;
  let bob: TestUser;
  let receivers: TestUser[];
  let api: Tier;
  let events: Tier;

  beforeAll(async () => {
    t = await startTestContext();
    org = await makeRealm(t);
    bob = await makeUser(t, org.realm, { fullName: 'Bob' });
    receivers = [];
    for (let i = 0; i < 4; i++) {
      receivers.push(await makeUser(t, org.realm, { fullName: `Receiver ${i}` }));
    }
    // Short heartbeats: a poll whose wake-up was lost with the master is answered soon anyway.
    const env = { HEARTBEAT_SECONDS: '2' };
    [api, events] = await Promise.all([
      startTier('api', t.config, env),
      startTier('events', t.config, env),
    ]);
  });
  afterAll(async () => {
    await Promise.all([api, events].map((tier) => tier?.stop()));
    await t?.close();
  });

  it('loses no committed message when a master dies during sends', async () => {
    if (!isCluster(t.redis)) throw new Error('TEST_REDIS_CLUSTER_NODES names no cluster');
    const clients = receivers.map((u) => new Client(u, org.host));
    for (const c of clients) await c.register(api);

    // The victim: the master serving the first client's queue.
    const queueSlot = keySlot(eventKeys(t.config.redisPrefix).queue(clients[0].queueId));
    const [victimHost, victimPort] = t.redis.slots[queueSlot][0].split(':');
    const probe = new Redis(Number(victimPort), victimHost);
    const pid = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]);
    probe.disconnect();
    expect(pid).toBeGreaterThan(0);
    const survivorAddress = t.redis
      .nodes('master')
      .map((n) => `${n.options.host}:${n.options.port}`)
      .find((a) => a !== `${victimHost}:${victimPort}`);
    const [survivorHost, survivorPort] = (survivorAddress ?? '').split(':');
    const survivor = new Redis(Number(survivorPort), survivorHost);
    let promotion: Promise<number | null> = Promise.resolve(null);

    let stopped = false;
    const sentAt = new Map<number, number>();
    const polling = clients.map((c) => c.run(api, events, sentAt, () => stopped));

    let killedAt = 0;
    const failures: number[] = [];
    let firstOkAfterKill = 0;
    for (let i = 0; i < SENDS; i++) {
      if (i === KILL_AFTER) {
        process.kill(pid, 'SIGKILL');
        killedAt = Date.now();
        promotion = promotedAfter(survivor, `${victimHost}:${victimPort}`, queueSlot, killedAt);
      }
      const started = Date.now();
      const res = await request(api.url)
        .post('/api/v1/messages')
        .set('Host', org.host)
        .set('Authorization', bob.auth)
        .type('form')
        .send({
          type: 'direct',
          to: JSON.stringify(receivers.map((r) => r.user.id)),
          content: `message ${i}`,
        })
        .timeout({ response: 30_000 })
        .catch(() => null);
      if (res?.status === 200) {
        sentAt.set(res.body.id as number, started);
        if (killedAt && !firstOkAfterKill) firstOkAfterKill = Date.now();
      } else {
        failures.push(i);
      }
      await sleep(SEND_GAP_MS);
    }

    // The truth: what PostgreSQL committed, answered or not.
    const committed = (
      await t.db.message.findMany({ where: { senderId: bob.user.id }, select: { id: true } })
    ).map((m) => m.id);
    const deadline = Date.now() + 40_000;
    while (clients.some((c) => committed.some((id) => !c.seen.has(id))) && Date.now() < deadline) {
      await sleep(200);
    }
    stopped = true;
    // Each loop ends after its current long-poll, which a heartbeat answers within 2 seconds.
    await Promise.race([Promise.all(polling), sleep(20_000, { unref: true })]);

    const promotedAfterMs = await promotion;
    survivor.disconnect();
    const missing = clients.map((c) => committed.filter((id) => !c.seen.has(id)));
    const delays = clients.flatMap((c) => c.delays).sort((a, b) => a - b);
    process.stderr.write(
      `redis failover: ${JSON.stringify({
        sends: SENDS,
        committed: committed.length,
        sendsFailed: failures.length,
        replicaPromotedAfterMs: promotedAfterMs,
        firstSendOkAfterKillMs: firstOkAfterKill ? firstOkAfterKill - killedAt : null,
        badQueueErrors: clients.map((c) => c.badQueueErrors),
        reRegistrations: clients.map((c) => c.reRegistrations),
        deliveryMsP50: delays[Math.floor(delays.length / 2)],
        deliveryMsMax: delays[delays.length - 1],
        missing: missing.map((m) => m.length),
      })}\n`,
    );
    expect(committed.length).toBeGreaterThanOrEqual(SENDS - failures.length);
    expect(promotedAfterMs).not.toBeNull();
    expect(missing).toEqual(clients.map(() => []));
  });
});
