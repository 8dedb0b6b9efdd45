import { EventEmitter } from 'node:events';
import type { TestUser } from '../../test/factories';
import { connectRedis, isCluster } from '../redis/connect';
import { execByNode } from '../redis/by-node';
import { typingEvent } from '../protocol/events/typing';
import { DISPATCH_GROUP, type DomainEventEnvelope } from './domain-stream';
import { partitionOf } from './keys';
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

  it("delivers to a queue registered after its owner's queue set was read and kept", async () => {
    const first = await org.register(alice);
    await postDirect(t, org.realm, bob.user, [alice.user], 'to the first queue');
    await org.eventsUntil(alice, first.queue_id);
    const second = await org.register(alice);
    const id = await postDirect(t, org.realm, bob.user, [alice.user], 'to both');
    for (const queueId of [first.queue_id, second.queue_id]) {
      const events = await org.eventsUntil(alice, queueId, (e) =>
        e.some((event) => (event.message as { id: number } | undefined)?.id === id),
      );
      expect(events.map((e) => (e.message as { id: number } | undefined)?.id)).toContain(id);
    }
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
        client: new EventEmitter(),
      });
      const queueKey = tier.store.keys.queue(queueId);
      while ((await t.redis.hget(queueKey, 'waiter')) !== tier.waker.channel) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const id = await postDirect(t, org.realm, alice.user, [bob.user], 'woken here');
      const events = (await answer)?.events;
      expect(events?.map((e) => [e.type, e.type === 'message' && e.message.id])).toEqual([
        ['message', id],
      ]);
      expect(events?.[0].id).toBe(lastEventId + 1);
      expect(published).toEqual([]);
    } finally {
      listener.disconnect();
    }
  });

  it('holds back only the partition of a batch that cannot be delivered', async () => {
    const { keys } = org.events.tier.store;
    const partitions = t.config.dispatchPartitions;
    const bobs = partitionOf(bob.user.id, partitions);
    const poisoned = [...Array(partitions).keys()].find(
      (p) => p !== bobs && p !== partitionOf(alice.user.id, partitions),
    );
    if (poisoned === undefined) throw new Error('the test needs three dispatch partitions');
    const { queue_id: queueId } = await org.register(bob);
    const person = (u: TestUser) => ({ user_id: u.user.id, email: u.user.email });
    const envelope: DomainEventEnvelope = {
      outboxId: `e-held-back-${Date.now()}`,
      realmId: org.realm.id,
      users: [bob.user.id],
      event: typingEvent({
        op: 'start',
        message_type: 'direct',
        sender: person(alice),
        recipients: [person(alice), person(bob)],
      }),
    };
    const poisonKey = keys.domainStream(poisoned);
    const goodKey = keys.domainStream(bobs);
    // Both at once, so the dispatcher reads them in the same turn and delivers them together.
    const [poisonId] = (await execByNode(t.redis, [
      { key: poisonKey, command: 'xadd', args: [poisonKey, '*', 'envelope', '{not json'] },
      {
        key: goodKey,
        command: 'xadd',
        args: [goodKey, '*', 'envelope', JSON.stringify(envelope)],
      },
    ])) as string[];
    try {
      const events = await org.eventsUntil(
        bob,
        queueId,
        (e) => e.some((event) => event.type === 'typing'),
        10_000,
      );
      expect(events.map((e) => e.type)).toContain('typing');
    } finally {
      await t.redis.xack(poisonKey, DISPATCH_GROUP, poisonId);
      await t.redis.xdel(poisonKey, poisonId);
    }
  });
});
