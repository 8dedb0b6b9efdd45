import zulip from 'zulip-js';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { startTestContext, type TestContext } from '../harness';
import { expectOpenApiResponse } from '../openapi';
import { freePort } from '../free-port';
import { startTier, type Tier } from './processes';

/**
 * `npm start`'s process (apps/all) on one loopback port, used by the official JavaScript client
 * through that one site URL: register, a long-poll woken by a message, deregister.
 */
jest.setTimeout(60_000);

let t: TestContext;
let all: Tier;
let org: TestRealm;
let alice: TestUser;
let bob: TestUser;
let siteUrl: string;

beforeAll(async () => {
  const port = await freePort();
  siteUrl = `http://localhost:${port}`;
  t = await startTestContext({ EXTERNAL_HOST: `localhost:${port}` });
  org = await makeRealm(t, { stringId: '' });
  alice = await makeUser(t, org.realm, { fullName: 'Alice' });
  bob = await makeUser(t, org.realm, { fullName: 'Bob' });
  all = await startTier('all', t.config, {}, port);
});
afterAll(async () => {
  await all?.stop();
  await t.close();
});

it('serves register, a long-poll and deregister on the one URL', async () => {
  const aliceClient = await zulip({ username: alice.email, apiKey: alice.apiKey, realm: siteUrl });
  const bobClient = await zulip({ username: bob.email, apiKey: bob.apiKey, realm: siteUrl });
  const queue = await aliceClient.queues.register({ event_types: ['message'] });
  expect(queue.result).toBe('success');

  const waiting = aliceClient.events.retrieve({
    queue_id: queue.queue_id,
    last_event_id: queue.last_event_id,
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const sent = await bobClient.messages.send({
    type: 'direct',
    to: [alice.user.id],
    content: 'One origin',
  });
  expect(sent.result).toBe('success');
  const got = await waiting;
  expect(got.result).toBe('success');
  expect(got.events.map((e: { type: string; message: { id: number } }) => e.message.id)).toEqual([
    sent.id,
  ]);
  expect(got.events[0].message.content).toBe('One origin');
  expectOpenApiResponse('/events', 'get', got);

  const deregistered = await aliceClient.queues.deregister({ queue_id: queue.queue_id });
  expect(deregistered.result).toBe('success');
  const after = await aliceClient.events.retrieve({ queue_id: queue.queue_id, dont_block: true });
  expect(after).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID' });
});

it('serves /json/events on the same port', async () => {
  const res = await fetch(`${siteUrl}/json/events?queue_id=nope&dont_block=true`, {
    headers: { Authorization: alice.auth },
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: 'nope' });
});
