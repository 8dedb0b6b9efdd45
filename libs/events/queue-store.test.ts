import { labelled, queueSettings } from '../../test/events-factories';
import { type Organization, organization } from '../../test/organization';
import { isCluster } from '../redis/connect';
import { QueueStore } from './queue-store';

let org: Organization;
let store: QueueStore;

beforeAll(async () => {
  org = await organization();
  store = QueueStore.of(org.t);
});
afterAll(() => org.close());

async function newQueue(): Promise<string> {
  const { id, ...settings } = queueSettings({ userId: org.owner.user.id, realmId: org.realm.id });
  void id;
  return (await store.create(settings)).id;
}

const read = async (queueId: string) => {
  const result = await store.poll(queueId, org.owner.user.id, undefined, null);
  return result.status === 'ok' ? result.events : result.status;
};

/**
 * Counts the script calls (EVALSHA) that `redis`'s own connections send, on every master: the
 * server's counters would also count other test files' calls to the same Redis.
 */
async function scriptCallsOf(redis: Organization['t']['redis']) {
  const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
  // A cluster connects to a node when first used: its socket is needed to know its port.
  await Promise.all(nodes.map((node) => node.ping()));
  const ours = new Set(nodes.map((node) => `127.0.0.1:${node.stream.localPort}`));
  const marker = `end-${Math.random()}`;
  let calls = 0;
  const ended = new Set<number>();
  const monitors = await Promise.all(
    nodes.map(async (node, i) => {
      const monitor = await node.monitor();
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (!ours.has(source)) return;
        if (args[0]?.toLowerCase() === 'evalsha') calls++;
        if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) ended.add(i);
      });
      return monitor;
    }),
  );
  return {
    async stop(): Promise<number> {
      // MONITOR reports asynchronously: each node's echo of the marker comes after our calls.
      await Promise.all(nodes.map((node) => node.echo(marker)));
      while (ended.size < nodes.length) await new Promise((resolve) => setTimeout(resolve, 10));
      for (const monitor of monitors) monitor.disconnect();
      return calls;
    },
  };
}

describe('QueueStore.append', () => {
  it('appends to many queues in one call, each in order, and skips an entry appended already', async () => {
    const [a, b] = [await newQueue(), await newQueue()];
    const shared = labelled('the same for everyone');
    const first = await store.append([
      { queueId: a, events: [shared], mark: '100-0', xid: '7' },
      { queueId: 'gone', events: [shared], mark: '100-0', xid: '7' },
      { queueId: b, events: [shared, labelled('own')], mark: '100-0', xid: '7' },
      { queueId: a, events: [labelled('next')], mark: '101-0', xid: '8' },
    ]);
    expect(first.map((r) => r.lastId)).toEqual([0, -1, 1, 1]);
    // One text per distinct event, shared by the queues that got it.
    expect(first[0].written[0]).toBe(first[2].written[0]);
    expect(await read(a)).toEqual([
      { ...shared, id: 0 },
      { ...labelled('next'), id: 1 },
    ]);
    expect(await read(b)).toEqual([
      { ...shared, id: 0 },
      { ...labelled('own'), id: 1 },
    ]);
    // A dispatcher redelivering entry 100-0 after a crash: queue b has it, queue a has 101-0.
    const again = await store.append([
      { queueId: a, events: [shared], mark: '100-0', xid: '7' },
      { queueId: b, events: [shared], mark: '100-0', xid: '7' },
    ]);
    expect(again.map((r) => r.lastId)).toEqual([-2, -2]);
    expect(await read(b)).toHaveLength(2);
  });

  it('hands the waiting process channel to the first append only', async () => {
    const queueId = await newQueue();
    await store.poll(queueId, org.owner.user.id, undefined, 'wake:test');
    const results = await store.append([
      { queueId, events: [labelled('one')] },
      { queueId, events: [labelled('two')] },
    ]);
    expect(results.map((r) => [r.lastId, r.waiter])).toEqual([
      [0, 'wake:test'],
      [1, ''],
    ]);
  });
});

describe('QueueStore.poll', () => {
  it('serves the polls of one turn in one script call, each its own answer', async () => {
    const [a, b, broken] = [await newQueue(), await newQueue(), await newQueue()];
    await store.append([
      { queueId: a, events: [labelled('a0'), labelled('a1')] },
      { queueId: b, events: [labelled('b0')] },
    ]);
    // A queue whose event list is not a list: its poll fails, the others' stand.
    await org.t.redis.hset(store.keys.queue(broken), 'last_id', 0);
    await org.t.redis.set(store.keys.events(broken), 'not a list');
    const owner = org.owner.user.id;
    const calls = await scriptCallsOf(org.t.redis);
    const polls = await Promise.allSettled([
      store.poll(a, owner, 0, null),
      store.poll(b, owner, undefined, 'wake:test'),
      store.poll(a, owner + 1, undefined, null),
      store.poll('gone', owner, undefined, null),
      store.poll(broken, owner, undefined, null),
    ]);
    // Five polls, one call (on a cluster, one per slot).
    const keys = new Set([a, b, 'gone', broken].map((id) => store.keys.queue(id)));
    const scriptCalls = await calls.stop();
    expect(scriptCalls).toBeGreaterThanOrEqual(1);
    expect(scriptCalls).toBeLessThanOrEqual(isCluster(org.t.redis) ? keys.size : 1);
    const [ackedOne, fresh, foreign, missing, failed] = polls;
    expect(ackedOne).toMatchObject({
      status: 'fulfilled',
      value: { status: 'ok', events: [{ ...labelled('a1'), id: 1 }], lastId: 1 },
    });
    expect(fresh).toMatchObject({
      status: 'fulfilled',
      value: { status: 'ok', events: [{ ...labelled('b0'), id: 0 }] },
    });
    expect(foreign).toMatchObject({ status: 'fulfilled', value: { status: 'foreign' } });
    expect(missing).toMatchObject({ status: 'fulfilled', value: { status: 'missing' } });
    expect(failed).toMatchObject({ status: 'rejected' });
    expect(String((failed as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    // The acknowledgement of a0 held.
    expect(await read(a)).toEqual([{ ...labelled('a1'), id: 1 }]);
  });
});

describe('a queue registered before event lists', () => {
  it('is gone for polls and appends, so its client registers again', async () => {
    const queueId = await newQueue();
    await org.t.redis.hdel(store.keys.queue(queueId), 'first_id');
    expect(await read(queueId)).toBe('missing');
    const [result] = await store.append([{ queueId, events: [labelled('late')] }]);
    expect(result.lastId).toBe(-1);
  });
});

describe('QueueStore.settingsOf', () => {
  const partition = () => store.partitionOf(org.owner.user.id);

  it("reads a partition's queues in one command, sharing the settings of queues registered alike", async () => {
    const [a, b] = [await newQueue(), await newQueue()];
    const [first, second, gone] = await store.settingsOf(partition(), [a, b, 'gone']);
    const { lastAccess, ...settings } = (await store.get(a))!;
    void lastAccess;
    expect(first).toEqual(settings);
    expect(second?.id).toBe(b);
    expect(second?.capabilities).toBe(first?.capabilities);
    expect(second?.narrow).toBe(first?.narrow);
    expect(gone).toBeNull();
  });

  it('takes a queue the index lacks for gone', async () => {
    const queueId = await newQueue();
    await org.t.redis.hdel(store.keys.queueSettings(partition()), queueId);
    expect(await store.settingsOf(partition(), [queueId])).toEqual([null]);
  });
});

describe('QueueStore.collectGarbage', () => {
  it("clears the sets of a queue whose keys expired, from the index's owner", async () => {
    const queueId = await newQueue();
    const partition = store.partitionOf(org.owner.user.id);
    await org.t.redis.del(store.keys.queue(queueId), store.keys.events(queueId));
    await store.collectGarbage(Date.now() + (store.idleSeconds + 1) * 1000);
    const userQueues = store.keys.userQueues(partition, org.owner.user.id);
    expect(await org.t.redis.sismember(userQueues, queueId)).toBe(0);
    expect(await org.t.redis.hexists(store.keys.queueSettings(partition), queueId)).toBe(0);
    expect(await org.t.redis.zscore(store.keys.access(partition), queueId)).toBeNull();
  });
});

describe('QueueStore.poll', () => {
  it('pushes back the TTL of both keys at most once per refresh interval', async () => {
    const queueId = await newQueue();
    await store.append([{ queueId, events: [labelled('kept')] }]);
    const keys = [store.keys.queue(queueId), store.keys.events(queueId)];
    const ttls = () => Promise.all(keys.map((key) => org.t.redis.pttl(key)));
    const full = (store.idleSeconds + 60) * 1000;

    await read(queueId);
    for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(full - 5_000);
    // Pushed back moments ago: the next poll leaves the TTL alone.
    const shortened = Math.floor(full / 2);
    for (const key of keys) await org.t.redis.pexpire(key, shortened);
    await read(queueId);
    for (const ttl of await ttls()) expect(ttl).toBeLessThanOrEqual(shortened);
    // Pushed back longer ago than the interval: the next poll pushes it back again.
    await org.t.redis.hset(keys[0], 'ttl_at', Date.now() - 31_000);
    await read(queueId);
    for (const ttl of await ttls()) expect(ttl).toBeGreaterThan(full - 5_000);
  });
});
