import { EventEmitter } from 'node:events';
import { isCluster } from '../redis/connect';
import type { TestContext } from '../../test/harness';
import { labelled, queueSettings } from '../../test/events-factories';
import { type Organization, organization } from '../../test/organization';
import { startEventsTier, type EventsTier } from './events-tier';
import { getEvents, type ClientConnection } from './get-events';
import { WakeMessage } from './waker';

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
