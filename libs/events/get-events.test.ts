import { EventEmitter } from 'node:events';
import { isCluster } from '../redis/connect';
import { TEST_REDIS_CLUSTER_NODES, type TestContext } from '../../test/harness';
import { execByNode } from '../redis/by-node';
import { planFinish } from './dispatch-plan';
import { waitFor } from '../../test/worker-factories';
import { labelled, queueSettings } from '../../test/events-factories';
import { type Organization, organization } from '../../test/organization';
import { startEventsTier, type EventsTier } from './events-tier';
import { getEvents, pollEvents, type ClientConnection } from './get-events';
import { WakeMessage, wakeCommand } from './waker';

let t: TestContext;
let org: Organization;
let tier: EventsTier;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
  // No dispatcher: the test publishes the wake-ups itself.
  tier = await startEventsTier(t, { dispatch: false, gcIntervalMs: 3_600_000 });
});
afterAll(async () => {
  await tier.stop();
  await org.close();
});

/** A queue of the owner's, and a poll of it that waits once its look recorded the channel. */
async function waitingPoll(
  on: EventsTier = tier,
  {
    heartbeatSeconds = 60,
    client = new EventEmitter(),
  }: { heartbeatSeconds?: number; client?: ClientConnection } = {},
) {
  const { id, ...settings } = queueSettings({ userId: org.owner.user.id, realmId: org.realm.id });
  void id;
  const queue = await on.store.create(settings);
  const answer = getEvents(on.store, on.waker, {
    user: org.owner.user,
    queueId: queue.id,
    lastEventId: -1,
    dontBlock: false,
    heartbeatSeconds,
    client,
  });
  const queueKey = on.store.keys.queue(queue.id);
  while ((await t.redis.hget(queueKey, 'waiter')) !== on.waker.channel) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { queueId: queue.id, answer };
}

const publish = (text: string) =>
  isCluster(t.redis)
    ? t.redis.spublish(tier.waker.channel, text)
    : t.redis.publish(tier.waker.channel, text);

/** An events process whose polls follow every partition, as its dispatcher's when it leads all. */
async function startLeader(): Promise<EventsTier> {
  const leader = await startEventsTier(t, { dispatch: false, gcIntervalMs: 3_600_000 });
  for (let p = 0; p < leader.store.partitions; p++) leader.waker.followed.lead(p);
  return leader;
}

/** The owner's next poll of a queue on `on`, acknowledging `lastEventId`. */
const nextPoll = (
  on: EventsTier,
  queueId: string,
  lastEventId: number,
  client = new EventEmitter(),
) =>
  getEvents(on.store, on.waker, {
    user: org.owner.user,
    queueId,
    lastEventId,
    dontBlock: false,
    heartbeatSeconds: 60,
    client,
  });
const tick = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('getEvents woken by the wake-up channel', () => {
  it('answers with the events the wake-up carried, without reading the queue', async () => {
    const { queueId, answer } = await waitingPoll();
    const message = new WakeMessage();
    // Stored nowhere: only the message holds these.
    message.add(queueId, 0, '', ['{"type":"carried","n":1}', '{"type":"carried","n":2}']);
    await publish(message.text);
    const polled = await answer;
    const expected = [
      { type: 'carried', n: 1, id: 0 },
      { type: 'carried', n: 2, id: 1 },
    ];
    expect(polled?.events).toEqual(expected);
    expect(JSON.parse(polled?.json ?? '')).toEqual(expected);
  });

  it('answers every poll waiting on the queue, whatever answering one of them does', async () => {
    const before = tier.waker.pollCount;
    const { queueId, answer } = await waitingPoll();
    const outcomes: string[] = [];
    const input = {
      user: org.owner.user,
      queueId,
      lastEventId: -1,
      dontBlock: false,
      heartbeatSeconds: 60,
      client: new EventEmitter(),
    };
    pollEvents(tier.store, tier.waker, input, {
      answered: (polled) => {
        outcomes.push(`answered ${polled?.events.length}`);
        throw new Error('the connection broke');
      },
      failed: (err) => outcomes.push(`failed: ${(err as Error).message}`),
    });
    await tick();
    const message = new WakeMessage();
    message.add(queueId, 0, '', ['{"type":"carried"}']);
    await publish(message.text);
    expect((await answer)?.events).toEqual([{ type: 'carried', id: 0 }]);
    expect(outcomes).toEqual(['answered 1', 'failed: the connection broke']);
    expect(tier.waker.pollCount).toBe(before);
  });

  it('reads the queue when the carried ids do not follow on from what it saw', async () => {
    const { queueId, answer } = await waitingPoll();
    await tier.store.append([{ queueId, events: [labelled('stored')] }]);
    const message = new WakeMessage();
    message.add(queueId, 5, '', ['{"type":"carried"}']);
    await publish(message.text);
    expect((await answer)?.events).toEqual([{ ...labelled('stored'), id: 0 }]);
  });

  it('reads the queue when the wake-up names it alone', async () => {
    const { queueId, answer } = await waitingPoll();
    await tier.store.append([{ queueId, events: [labelled('stored')] }]);
    await publish(JSON.stringify({ events: [], queues: [[queueId]] }));
    expect((await answer)?.events).toEqual([{ ...labelled('stored'), id: 0 }]);
  });
});

describe('getEvents ending a wait without a wake-up', () => {
  it('answers a heartbeat once the heartbeat interval passes', async () => {
    const { answer } = await waitingPoll(tier, { heartbeatSeconds: 0.3 });
    expect((await answer)?.events).toEqual([{ type: 'heartbeat', id: 0 }]);
  });

  it('ends without an answer, no longer listening, when the client goes away', async () => {
    const client = new EventEmitter();
    const { queueId, answer } = await waitingPoll(tier, { client });
    const before = tier.waker.pollCount;
    client.emit('close');
    expect(await answer).toBeNull();
    expect(tier.waker.pollCount).toBe(before - 1);
    // The events stay queued for the next poll.
    await tier.store.append([{ queueId, events: [labelled('kept')] }]);
    const next = await tier.store.poll(queueId, org.owner.user.id, undefined, null);
    expect(next.status === 'ok' && next.events).toEqual([{ ...labelled('kept'), id: 0 }]);
  });
});

describe('getEvents while the process drains', () => {
  it('answers waiting polls, and polls that come later, with an empty list', async () => {
    const stopping = await startEventsTier(t, { dispatch: false, gcIntervalMs: 3_600_000 });
    try {
      const waiting = await waitingPoll(stopping);
      stopping.waker.drain();
      expect((await waiting.answer)?.events).toEqual([]);
      expect(stopping.waker.pollCount).toBe(0);
      const later = await waitingPoll(stopping);
      expect((await later.answer)?.events).toEqual([]);
    } finally {
      await stopping.stop();
    }
  });
});

describe('getEvents on the process whose dispatcher appends to the queue', () => {
  let leader: EventsTier;
  beforeAll(async () => (leader = await startLeader()));
  afterAll(() => leader.stop());

  /** Appends as that process's dispatcher does, waking its polls with what it wrote. */
  async function dispatched(queueId: string, ...labels: string[]): Promise<void> {
    const events = labels.map(labelled);
    const [{ lastId, written }] = await leader.store.append([{ queueId, events }]);
    const carried = events.map((event, j) => ({ event, xid: '', json: written[j] }));
    const firstId = lastId - events.length + 1;
    leader.waker.wakeAppended([[queueId, { kind: 'events', firstId, events: carried }]]);
  }

  /** A queue whose first poll looked in Redis and was answered with event 0 ('a'). */
  async function followedQueue(): Promise<string> {
    const { queueId, answer } = await waitingPoll(leader);
    await dispatched(queueId, 'a');
    expect((await answer)?.events).toEqual([{ ...labelled('a'), id: 0 }]);
    return queueId;
  }

  it('answers the next polls from memory, with the events and ids Redis holds', async () => {
    const queueId = await followedQueue();
    const looks = jest.spyOn(leader.store, 'poll');
    try {
      const waiting = nextPoll(leader, queueId, 0);
      await tick();
      await dispatched(queueId, 'b', 'c');
      const fromMemory = await waiting;
      await dispatched(queueId, 'd');
      // A client that lost that answer polls again from where it was.
      const again = await nextPoll(leader, queueId, 0);
      expect(looks).not.toHaveBeenCalled();
      expect(fromMemory?.events).toEqual([
        { ...labelled('b'), id: 1 },
        { ...labelled('c'), id: 2 },
      ]);
      const fromRedis = await leader.store.poll(queueId, org.owner.user.id, 0, null);
      expect(fromRedis.status === 'ok' && fromRedis.events).toEqual([
        { ...labelled('b'), id: 1 },
        { ...labelled('c'), id: 2 },
        { ...labelled('d'), id: 3 },
      ]);
      expect(JSON.parse(again?.json ?? '')).toEqual(fromRedis.status === 'ok' && fromRedis.events);
    } finally {
      looks.mockRestore();
    }
  });

  it('reads Redis when an append it did not make leaves a gap in the ids', async () => {
    const queueId = await followedQueue();
    const waiting = nextPoll(leader, queueId, 0);
    await tick();
    // Another process's heartbeat: this one learns of it only by the gap.
    await leader.store.append([{ queueId, events: [{ type: 'heartbeat' }] }]);
    await dispatched(queueId, 'b');
    expect((await waiting)?.events).toEqual([
      { type: 'heartbeat', id: 1 },
      { ...labelled('b'), id: 2 },
    ]);
  });

  it('reads Redis for a poll acknowledging an id it does not know', async () => {
    const queueId = await followedQueue();
    // Acknowledged elsewhere: another replica answered it.
    await leader.store.append([{ queueId, events: [labelled('b')] }]);
    const looks = jest.spyOn(leader.store, 'poll');
    try {
      const waiting = nextPoll(leader, queueId, 1);
      await tick();
      expect(looks).toHaveBeenCalledTimes(1);
      await dispatched(queueId, 'c');
      expect((await waiting)?.events).toEqual([{ ...labelled('c'), id: 2 }]);
    } finally {
      looks.mockRestore();
    }
  });

  it('has a poll waiting on memory record its waiter in Redis once the queue is forgotten', async () => {
    const queueId = await followedQueue();
    const waiting = nextPoll(leader, queueId, 0);
    await tick();
    const queueKey = leader.store.keys.queue(queueId);
    expect(await t.redis.hget(queueKey, 'waiter')).toBe('');
    leader.waker.followed.prune(Date.now() + 60_000);
    while ((await t.redis.hget(queueKey, 'waiter')) !== leader.waker.channel) await tick();
    await dispatched(queueId, 'b');
    expect((await waiting)?.events).toEqual([{ ...labelled('b'), id: 1 }]);
  });

  it('acknowledges in Redis what memory did once a queue whose client left is forgotten', async () => {
    const queueId = await followedQueue();
    const waiting = nextPoll(leader, queueId, 0);
    await tick();
    await dispatched(queueId, 'b');
    expect((await waiting)?.events).toEqual([{ ...labelled('b'), id: 1 }]);
    // The client acknowledges 'b' from memory, then goes away.
    const client = new EventEmitter();
    const last = nextPoll(leader, queueId, 1, client);
    await tick();
    client.emit('close');
    expect(await last).toBeNull();
    const queueKey = leader.store.keys.queue(queueId);
    expect(await t.redis.hget(queueKey, 'first_id')).toBe('0');
    leader.waker.followed.prune(Date.now() + 60_000);
    while ((await t.redis.hget(queueKey, 'first_id')) !== '2') await tick();
    expect(await t.redis.llen(leader.store.keys.events(queueId))).toBe(0);
  });
});

describe('getEvents on a process that follows a queue another process leads', () => {
  let leader: EventsTier;
  beforeAll(async () => (leader = await startLeader()));
  afterAll(() => leader.stop());

  /** Appends as the leader's dispatcher does: its own polls woken, the others' by message. */
  async function dispatched(queueId: string, ...labels: string[]): Promise<void> {
    const appends = [{ queueId, events: labels.map(labelled) }];
    const results = await leader.store.append(appends);
    const plan = planFinish(appends, results, { ofUser: new Map(), publicOfRealm: new Map() }, [], {
      channel: leader.waker.channel,
      follows: (id) => leader.waker.followed.follows(id),
    });
    leader.waker.wakeAppended(plan.localWakeups);
    for (const [channel, message] of plan.wakeMessages) {
      await execByNode(t.redis, [wakeCommand(t.redis, channel, message)]);
    }
  }

  /** A queue whose first poll, on `tier`, looked in Redis and was answered with event 0. */
  async function followedQueue(): Promise<string> {
    const { queueId, answer } = await waitingPoll(tier);
    await dispatched(queueId, 'a');
    expect((await answer)?.events).toEqual([{ ...labelled('a'), id: 0 }]);
    return queueId;
  }

  it("answers the next polls from the leader's messages (on one Redis)", async () => {
    const queueId = await followedQueue();
    const looks = jest.spyOn(tier.store, 'poll');
    try {
      const waiting = nextPoll(tier, queueId, 0);
      await tick();
      // No poll of the queue waits in Redis: the message goes to its follower. A cluster's
      // sharded subscriptions move unannounced: there the poll looks, and waits in Redis.
      expect(await t.redis.hget(tier.store.keys.queue(queueId), 'waiter')).toBe(
        isCluster(t.redis) ? tier.waker.channel : '',
      );
      await dispatched(queueId, 'b', 'c');
      expect((await waiting)?.events).toEqual([
        { ...labelled('b'), id: 1 },
        { ...labelled('c'), id: 2 },
      ]);
      expect(looks).toHaveBeenCalledTimes(isCluster(t.redis) ? 1 : 0);
    } finally {
      looks.mockRestore();
    }
    const fromRedis = await tier.store.poll(queueId, org.owner.user.id, 0, null);
    expect(fromRedis.status === 'ok' && fromRedis.events.map((e) => e.id)).toEqual([1, 2]);
  });

  (TEST_REDIS_CLUSTER_NODES ? it.skip : it)(
    "stops answering from memory once a third process's look takes its place",
    async () => {
      const queueId = await followedQueue();
      const third = await startEventsTier(t, { dispatch: false, gcIntervalMs: 3_600_000 });
      try {
        expect(tier.waker.followed.follows(queueId)).toBe(true);
        const elsewhere = nextPoll(third, queueId, 0);
        // Told at once, not when its follow would have lapsed (FOLLOW_MS).
        await waitFor(async () => !tier.waker.followed.follows(queueId), 2_000, 20);
        await dispatched(queueId, 'b');
        expect((await elsewhere)?.events).toEqual([{ ...labelled('b'), id: 1 }]);
        // Back on the first process, which no longer learns the appends: it reads Redis.
        await dispatched(queueId, 'c');
        const looks = jest.spyOn(tier.store, 'poll');
        try {
          expect((await nextPoll(tier, queueId, 1))?.events).toEqual([{ ...labelled('c'), id: 2 }]);
          expect(looks).toHaveBeenCalledTimes(1);
        } finally {
          looks.mockRestore();
        }
      } finally {
        await third.stop();
      }
    },
  );

  (TEST_REDIS_CLUSTER_NODES ? it.skip : it)(
    'has the follower read the queue after a heartbeat another process appended',
    async () => {
      const queueId = await followedQueue();
      const waiting = nextPoll(tier, queueId, 0);
      await tick();
      // A poll on the leader waits out its heartbeat: no dispatch tells the follower of that one.
      const onLeader = await getEvents(leader.store, leader.waker, {
        user: org.owner.user,
        queueId,
        lastEventId: 0,
        dontBlock: false,
        heartbeatSeconds: 0.2,
        client: new EventEmitter(),
      });
      expect(onLeader?.events).toEqual([{ type: 'heartbeat', id: 1 }]);
      const bound = new Promise((resolve) => setTimeout(resolve, 2_000, 'still waiting'));
      expect(await Promise.race([waiting.then((answer) => answer?.events), bound])).toEqual([
        { type: 'heartbeat', id: 1 },
      ]);
    },
  );
});
