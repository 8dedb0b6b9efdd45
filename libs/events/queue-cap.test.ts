import type { TestUser } from '../../test/factories';
import { type Organization, organization } from '../../test/organization';

/** EVENT_QUEUES_PER_USER: a user's registration past the cap evicts their longest-idle queue. */
let org: Organization<'alice' | 'bob'>;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  org = await organization({
    env: { EVENT_QUEUES_PER_USER: '2' },
    events: true,
    members: { alice: 'member', bob: 'member' },
  });
  ({ alice, bob } = org.users);
});
afterAll(() => org.close());

const pollNow = (user: TestUser, queueId: string) =>
  org.poll(user, { queue_id: queueId, dont_block: true });
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

it('keeps each user to the cap by evicting the longest-idle queue', async () => {
  const first = await org.register(alice);
  await pause();
  const second = await org.register(alice);
  await pause();
  // Polled last: the first queue is now the less idle of the two.
  expect((await pollNow(alice, first.queue_id)).status).toBe(200);
  await pause();
  const bobs = await org.register(bob);

  const third = await org.register(alice);
  const gone = await pollNow(alice, second.queue_id);
  expect(gone.status).toBe(400);
  expect(gone.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: second.queue_id });
  for (const kept of [first, third]) {
    expect((await pollNow(alice, kept.queue_id)).status).toBe(200);
  }
  // Another user's queues do not count against Alice's cap.
  expect((await pollNow(bob, bobs.queue_id)).status).toBe(200);
  const { store } = org.events.tier;
  const partition = store.partitionOf(alice.user.id);
  const ids = await org.t.redis.smembers(store.keys.userQueues(partition, alice.user.id));
  expect(ids.sort()).toEqual([first.queue_id, third.queue_id].sort());
});
