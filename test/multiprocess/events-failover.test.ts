import request from 'supertest';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { startTestContext, type TestContext } from '../harness';
import { startTier, type Tier } from './processes';

/**
 * Two API and two events processes on loopback. A client registers through api#1 and long-polls
 * events#1 (the dispatcher's leader); messages are sent through api#2. events#1 is killed with
 * SIGKILL in the middle of a poll; the client re-polls events#2, which takes over dispatching,
 * and receives every event exactly once, in order.
 */
jest.setTimeout(120_000);

let t: TestContext;
let org: TestRealm;
let alice: TestUser;
let bob: TestUser;
let api1: Tier;
let api2: Tier;
let events1: Tier;
let events2: Tier;

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  alice = await makeUser(t, org.realm, { fullName: 'Alice' });
  bob = await makeUser(t, org.realm, { fullName: 'Bob' });
  // events#1 starts first, so it holds the dispatcher lease when it is killed.
  events1 = await startTier('events', t.config);
  [api1, api2, events2] = await Promise.all([
    startTier('api', t.config),
    startTier('api', t.config),
    startTier('events', t.config),
  ]);
});
afterAll(async () => {
  await Promise.all([api1, api2, events1, events2].map((tier) => tier?.stop()));
  await t.close();
});

interface Event {
  id: number;
  type: string;
  message?: { id: number; content: string };
}

const send = async (content: string): Promise<number> => {
  const res = await request(api2.url)
    .post('/api/v1/messages')
    .set('Host', org.host)
    .set('Authorization', bob.auth)
    .type('form')
    .send({ type: 'direct', to: JSON.stringify([alice.user.id]), content });
  expect(res.status).toBe(200);
  return res.body.id as number;
};

const poll = (tier: Tier, queueId: string, lastEventId: number) =>
  request(tier.url)
    .get('/api/v1/events')
    .set('Host', org.host)
    .set('Authorization', alice.auth)
    .query({ queue_id: queueId, last_event_id: lastEventId });

it('delivers every event exactly once, in order, across an events process crash', async () => {
  const registered = await request(api1.url)
    .post('/api/v1/register')
    .set('Host', org.host)
    .set('Authorization', alice.auth)
    .type('form')
    .send({ event_types: JSON.stringify(['message']), apply_markdown: 'false' });
  expect(registered.status).toBe(200);
  const queueId = registered.body.queue_id as string;

  // 1. A long-poll on events#1 is woken by a message sent through api#2.
  const firstPoll = poll(events1, queueId, -1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const first = await send('one');
  const firstBody = (await firstPoll).body as { events: Event[] };
  expect(firstBody.events.map((e) => [e.id, e.message?.id])).toEqual([[0, first]]);

  // 2. events#1 dies in the middle of the next poll.
  const doomed = poll(events1, queueId, 0).then(
    () => 'answered',
    () => 'connection lost',
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  await events1.stop('SIGKILL');
  expect(await doomed).toBe('connection lost');

  // 3. More messages while no dispatcher holds the lease; events#2 takes over.
  const later = [await send('two'), await send('three'), await send('four')];

  // 4. The client re-polls on events#2 from what it acknowledged.
  const received: Event[] = [];
  let last = 0;
  const deadline = Date.now() + 30_000;
  while (received.length < later.length && Date.now() < deadline) {
    const res = await poll(events2, queueId, last);
    expect(res.status).toBe(200);
    for (const e of (res.body as { events: Event[] }).events) {
      if (e.type === 'message') received.push(e);
      last = Math.max(last, e.id);
    }
  }
  expect(received.map((e) => e.message?.id)).toEqual(later);
  expect(received.map((e) => e.message?.content)).toEqual(['two', 'three', 'four']);
  const ids = received.map((e) => e.id);
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  expect(ids[0]).toBeGreaterThan(0);

  // Nothing else is waiting: a non-blocking poll after the last id is empty.
  const rest = await request(events2.url)
    .get('/api/v1/events')
    .set('Host', org.host)
    .set('Authorization', alice.auth)
    .query({ queue_id: queueId, last_event_id: last, dont_block: true });
  expect(rest.body.events).toEqual([]);
});
