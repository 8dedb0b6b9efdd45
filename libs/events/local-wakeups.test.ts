import { labelled } from '../../test/events-factories';
import { loadConfig } from '../config/load-config';
import { connectRedis } from '../redis/connect';
import { TEST_REDIS_CLUSTER_NODES, TEST_REDIS_URL } from '../../test/harness';
import { LocalWakeups } from './local-wakeups';
import type { Wakeup } from './wake-protocol';
import { Waker } from './waker';

const config = loadConfig({
  NODE_ENV: 'test',
  REDIS_URL: TEST_REDIS_URL,
  REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES,
});

const carrying = (firstId: number): Wakeup => ({
  kind: 'events',
  firstId,
  events: [{ event: labelled('test'), xid: '', json: JSON.stringify(labelled('test')) }],
});

describe('LocalWakeups', () => {
  let waker: Waker;
  beforeEach(() => {
    waker = new Waker(connectRedis(config, { lazyConnect: true }), 'local-wakeups-test');
  });
  afterEach(() => waker.close());

  it('holds wake-ups until every delivery under way has appended, each counted once', () => {
    const local = new LocalWakeups(waker);
    const poll = waker.listen('q1');
    const [first, second] = [local.begin(), local.begin()];
    first.end([['q1', carrying(0)]]);
    expect(poll.take()).toBeUndefined();
    first.end();
    expect(poll.take()).toBeUndefined();
    second.end([['q1', carrying(1)]]);
    const woken = poll.take();
    expect(woken?.kind === 'events' && [woken.firstId, woken.events.length]).toEqual([0, 2]);
  });

  it('wakes at once when no other delivery is under way, and a failed one holds nothing', () => {
    const local = new LocalWakeups(waker);
    const poll = waker.listen('q1');
    const [failed, delivered] = [local.begin(), local.begin()];
    failed.end();
    delivered.end([['q1', carrying(0)]]);
    expect(poll.take()).toEqual(carrying(0));
  });

  it('stops holding after a while when another delivery stays under way', async () => {
    const local = new LocalWakeups(waker);
    const poll = waker.listen('q1');
    const [slow, quick] = [local.begin(), local.begin()];
    quick.end([['q1', carrying(0)]]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(poll.take()).toEqual(carrying(0));
    slow.end();
  });
});
