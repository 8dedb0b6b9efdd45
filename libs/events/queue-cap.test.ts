import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../test/factories';
import { poll, register, startTestEvents, type TestEvents } from '../../test/events-factories';
import { startTestContext, type TestContext } from '../../test/harness';

/** EVENT_QUEUES_PER_USER: a user's registration past the cap evicts their longest-idle queue. */
let t: TestContext;
let ev: TestEvents;
let org: TestRealm;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestContext({ EVENT_QUEUES_PER_USER: '2' });
  ev = await startTestEvents(t);
  org = await makeRealm(t);
  alice = await makeUser(t, org.realm);
  bob = await makeUser(t, org.realm);
});
afterAll(async () => {
  await ev.stop();
  await t.close();
});

const pollNow = (user: TestUser, queueId: string) =>
  poll(ev, org.host, user.auth, { queue_id: queueId, dont_block: true });
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

it('keeps each user to the cap by evicting the longest-idle queue', async () => {
  const first = await register(t, org.host, alice.auth);
  await pause();
  const second = await register(t, org.host, alice.auth);
  await pause();
  // Polled last: the first queue is now the less idle of the two.
  expect((await pollNow(alice, first.queue_id)).status).toBe(200);
  await pause();
  const bobs = await register(t, org.host, bob.auth);

  const third = await register(t, org.host, alice.auth);
  const gone = await pollNow(alice, second.queue_id);
  expect(gone.status).toBe(400);
  expect(gone.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: second.queue_id });
  for (const kept of [first, third]) {
    expect((await pollNow(alice, kept.queue_id)).status).toBe(200);
  }
  // Another user's queues do not count against Alice's cap.
  expect((await pollNow(bob, bobs.queue_id)).status).toBe(200);
  const partition = ev.tier.store.partitionOf(alice.user.id);
  const ids = await t.redis.smembers(ev.tier.store.keys.userQueues(partition, alice.user.id));
  expect(ids.sort()).toEqual([first.queue_id, third.queue_id].sort());
});
