import type { TestUser } from '../../test/factories';
import { connectRedis, isCluster } from '../redis/connect';
import { getEvents } from './get-events';
import { deleteKeys, type TestContext } from '../../test/harness';
import { postDirect } from '../../test/message-factories';
import { type Organization, organization } from '../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  org = await organization({ events: true, members: { alice: 'member', bob: 'member' } });
  ({ t } = org);
  ({ alice, bob } = org.users);
});
afterAll(() => org.close());

describe('Dispatcher', () => {
  it('delivers again after Redis lost its data, consumer groups included', async () => {
    const before = await org.register(bob);
    await postDirect(t, org.realm, alice.user, [bob.user], 'before');
    await org.eventsUntil(bob, before.queue_id);

    // What a Redis restarted without persistence holds of ours: nothing.
    await deleteKeys(t.redis, `${t.config.redisPrefix}*`);
    const after = await org.register(bob);
    const id = await postDirect(t, org.realm, alice.user, [bob.user], 'after');
    const events = await org.eventsUntil(
      bob,
      after.queue_id,
      (e) => e.some((event) => event.type === 'message'),
      10_000,
    );
    expect(events.map((e) => (e.message as { id: number } | undefined)?.id)).toContain(id);
  });

  it("wakes its own process's polls directly, publishing nothing on their channel", async () => {
    const { tier } = org.events;
    const listener = connectRedis(t.config, { shardedSubscriber: true });
    const published: string[] = [];
    listener.on(isCluster(listener) ? 'smessage' : 'message', (_channel: string, text: string) =>
      published.push(text),
    );
    if (isCluster(listener)) await listener.ssubscribe(tier.waker.channel);
    else await listener.subscribe(tier.waker.channel);
    try {
      const { queue_id: queueId, last_event_id: lastEventId } = await org.register(bob);
      const answer = getEvents(tier.store, tier.waker, {
        user: bob.user,
        queueId,
        lastEventId,
        dontBlock: false,
        heartbeatSeconds: 60,
        closed: new Promise<void>(() => undefined),
      });
      const queueKey = tier.store.keys.queue(queueId);
      while ((await t.redis.hget(queueKey, 'waiter')) !== tier.waker.channel) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const id = await postDirect(t, org.realm, alice.user, [bob.user], 'woken here');
      const events = await answer;
      expect(events?.map((e) => [e.type, e.type === 'message' && e.message.id])).toEqual([
        ['message', id],
      ]);
      expect(events?.[0].id).toBe(lastEventId + 1);
      expect(published).toEqual([]);
    } finally {
      listener.disconnect();
    }
  });
});
