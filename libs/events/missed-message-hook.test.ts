import type { TestUser } from '../../test/factories';
import { type Organization, organization } from '../../test/organization';
import { notifyCollectedQueue } from '../domain/notifications/notify-collected-queue';
import { decideMessageNotifications } from '../domain/notifications/decide-notifications';
import type { NotifyCollectedQueuePayload } from '../jobs';
import { collectedQueueJobId, missedMessageHook } from './missed-message-hook';
import type { CollectedQueue } from './queue-store';

/**
 * Issue 46: Zulip's missedmessage_hook. Bob's client is open when Alice writes, so he is not away
 * and nothing is sent; then his laptop closes. When the garbage collector deletes his last queue,
 * the unread messages it held are decided again for him as someone away.
 */
let org: Organization<'alice' | 'bob' | 'carol'>;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

beforeAll(async () => {
  org = await organization({
    events: true,
    members: { alice: 'member', bob: 'member', carol: 'member' },
  });
  ({ alice, bob, carol } = org.users);
});
afterAll(async () => {
  await org.close();
});

async function dmTo(to: TestUser, content: string): Promise<number> {
  const res = await org
    .as(alice)
    .post('/messages', { type: 'direct', to: JSON.stringify([to.user.id]), content })
    .expect(200);
  return res.body.id as number;
}

/** The job a collected queue left in the job outbox (the worker tier relays it to BullMQ). */
const jobOf = async (queueId: string): Promise<NotifyCollectedQueuePayload | null> =>
  ((await org.t.db.jobOutbox.findUnique({ where: { jobId: collectedQueueJobId(queueId) } }))
    ?.payload ?? null) as NotifyCollectedQueuePayload | null;

const emailsOwed = (user: TestUser, messageId: number) =>
  org.t.db.missedMessageEmail.count({ where: { userId: user.user.id, messageId } });

/** Collects every queue idle past the limit, running the hook as the events tier does. */
async function collect(): Promise<CollectedQueue[]> {
  const collected: CollectedQueue[] = [];
  await org.events.tier.store.collectGarbage(Date.now() + 3_600_000, undefined, async (queue) => {
    collected.push(queue);
    await missedMessageHook(org.t, queue);
  });
  return collected;
}

/** A user at the screen: an event queue just polled, and presence reported active. */
async function present(user: TestUser): Promise<string> {
  const queue = await org.register(user, { event_types: JSON.stringify(['message']) });
  await org.as(user).post('/users/me/presence', { status: 'active' }).expect(200);
  return queue.queue_id;
}

describe("collecting a user's last queue", () => {
  it('sends what the user missed, but not what was read meanwhile', async () => {
    const queueId = await present(bob);
    const missed = await dmTo(bob, 'lunch?');
    const read = await dmTo(bob, 'never mind');
    await org.eventsUntil(
      bob,
      queueId,
      (got) => got.filter((e) => e.type === 'message').length === 2,
    );
    for (const id of [missed, read]) await decideMessageNotifications(org.t, { messageId: id });
    expect(await emailsOwed(bob, missed)).toBe(0);
    await org
      .as(bob)
      .post('/messages/flags', { messages: JSON.stringify([read]), op: 'add', flag: 'read' })
      .expect(200);

    const collected = (await collect()).filter((q) => q.queueId === queueId);
    expect(collected).toEqual([
      {
        queueId,
        userId: bob.user.id,
        realmId: org.realm.id,
        messageIds: [missed, read],
        lastForUser: true,
      },
    ]);
    const job = await jobOf(queueId);
    expect(job).toEqual({ userId: bob.user.id, messageIds: [missed, read] });
    const outcome = await notifyCollectedQueue(org.t, job as NotifyCollectedQueuePayload);
    expect(outcome.emails).toBe(1);
    expect(await emailsOwed(bob, missed)).toBe(1);
    expect(await emailsOwed(bob, read)).toBe(0);
    // Run twice (a retried job), nothing more is owed.
    await notifyCollectedQueue(org.t, job as NotifyCollectedQueuePayload);
    expect(await org.t.db.missedMessageEmail.count({ where: { userId: bob.user.id } })).toBe(1);
  });

  it('waits for the last of the user queues', async () => {
    const first = await present(carol);
    const second = await present(carol);
    const id = await dmTo(carol, 'hello');
    for (const queueId of [first, second]) {
      await org.eventsUntil(carol, queueId, (got) => got.some((e) => e.type === 'message'));
    }
    const carols = (await collect()).filter((q) => q.userId === carol.user.id);
    expect(carols.map((q) => q.lastForUser)).toEqual([false, true]);
    expect(carols.map((q) => q.messageIds)).toEqual([[id], [id]]);
    expect(await jobOf(carols[0].queueId)).toBeNull();
    expect(await jobOf(carols[1].queueId)).toEqual({ userId: carol.user.id, messageIds: [id] });
  });
});
