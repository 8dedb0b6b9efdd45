import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zulip from 'zulip-js';
import { startCluster, type Cluster } from '../../deploy/local/cluster';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { CLUSTER_SECRET_KEY, clusterApi, clusterEnv, form } from '../cluster-env';
import { startTestContext, type TestContext } from '../harness';

/**
 * The local cluster (deploy/local/cluster.ts) as operators run it: Debian's nginx with
 * deploy/nginx/chat.conf in front of 2 api, 2 events and 2 worker processes from dist/, driven
 * only through nginx's one URL.
 */
jest.setTimeout(240_000);

const BASE_PORT = 19480;
let t: TestContext;
let cluster: Cluster;
let org: TestRealm;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestContext({
    EXTERNAL_HOST: `127.0.0.1:${BASE_PORT}`,
    SECRET_KEY: CLUSTER_SECRET_KEY,
  });
  org = await makeRealm(t, { stringId: '' });
  alice = await makeUser(t, org.realm, { fullName: 'Alice' });
  bob = await makeUser(t, org.realm, { fullName: 'Bob' });
  cluster = await startCluster({
    dir: mkdtempSync(path.join(tmpdir(), 'chat-cluster-')),
    basePort: BASE_PORT,
    env: clusterEnv(t),
  });
});
afterAll(async () => {
  await cluster?.stop();
  await t.close();
});

const api = clusterApi(() => cluster.url);
const registerQueue = async (user: TestUser) => {
  const res = await api('/register', user.auth, form({ event_types: '["message"]' }));
  expect(res.status).toBe(200);
  return ((await res.json()) as { queue_id: string }).queue_id;
};
const sendDirect = async (content: string) => {
  const res = await api(
    '/messages',
    bob.auth,
    form({ type: 'direct', to: JSON.stringify([alice.user.id]), content }),
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: number }).id;
};
type Poll = { events: { type: string; message?: { id: number; content: string } }[] };
const poll = async (queueId: string, lastEventId = -1): Promise<Poll> => {
  const res = await api(`/events?queue_id=${queueId}&last_event_id=${lastEventId}`, alice.auth);
  expect(res.status).toBe(200);
  return (await res.json()) as Poll;
};
const waitingPolls = async (name: string) => {
  const text = await (
    await fetch(`http://127.0.0.1:${cluster.byName(name).metricsPort}/metrics`)
  ).text();
  return Number(/^chat_events_polls_waiting\{[^}]*\} (\d+)$/m.exec(text)?.[1]);
};

it('zulip-js registers, receives a message and deregisters through the one URL', async () => {
  const client = await zulip({ username: alice.email, apiKey: alice.apiKey, realm: cluster.url });
  const queue = await client.queues.register({ event_types: ['message'] });
  expect(queue.result).toBe('success');
  const waiting = client.events.retrieve({
    queue_id: queue.queue_id,
    last_event_id: queue.last_event_id,
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const id = await sendDirect('through nginx');
  const got = await waiting;
  expect(got.events.map((e: { message: { id: number } }) => e.message.id)).toEqual([id]);
  expect((await client.queues.deregister({ queue_id: queue.queue_id })).result).toBe('success');
});

it('spreads long-polls over both events replicas, and every one of them is woken', async () => {
  // Queues are spread by a hash of their id: with 16, both replicas get some but once in 30,000.
  const queues = await Promise.all([...Array(16)].map(() => registerQueue(alice)));
  const polls = queues.map((q) => poll(q));
  const deadline = Date.now() + 10_000;
  let waiting = [0, 0];
  while (waiting[0] + waiting[1] < 16 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    waiting = await Promise.all(['events-1', 'events-2'].map(waitingPolls));
  }
  expect(waiting[0] + waiting[1]).toBe(16);
  expect(waiting[0]).toBeGreaterThan(0);
  expect(waiting[1]).toBeGreaterThan(0);
  const id = await sendDirect('to every queue');
  for (const answer of await Promise.all(polls)) {
    expect(answer.events.map((e) => e.message?.id)).toEqual([id]);
  }
});

it('serves a queue from either events replica, whichever nginx picks', async () => {
  const queueId = await registerQueue(alice);
  const id = await sendDirect('stored in Redis');
  // Delivery into the queue follows the send's commit; the first poll waits for it.
  for (const [name, dontBlock] of [
    ['events-1', false],
    ['events-2', true],
  ] as const) {
    const res = await fetch(
      `http://127.0.0.1:${cluster.byName(name).port}/api/v1/events?queue_id=${queueId}&last_event_id=-1&dont_block=${dontBlock}`,
      { headers: { Authorization: alice.auth } },
    );
    const body = (await res.json()) as Poll;
    expect(body.events.map((e) => e.message?.id)).toEqual([id]);
  }
});

it('runs scheduled messages on the worker tier', async () => {
  const queueId = await registerQueue(alice);
  const res = await api(
    '/scheduled_messages',
    bob.auth,
    form({
      type: 'direct',
      to: JSON.stringify([alice.user.id]),
      content: 'scheduled through nginx',
      scheduled_delivery_timestamp: String(Math.ceil(Date.now() / 1000) + 2),
    }),
  );
  expect(res.status).toBe(200);
  const answer = await poll(queueId);
  expect(answer.events.map((e) => e.message?.content)).toEqual(['scheduled through nginx']);
});

it('logs each process to its own file and stops every process cleanly', async () => {
  for (const p of cluster.processes) {
    expect(readFileSync(p.logFile, 'utf8')).toContain('"category":"boot"');
  }
  const events1Log = readFileSync(cluster.byName('events-1').logFile, 'utf8');
  expect(events1Log).toMatch(/"message":"request","method":"GET".*"path":"\/api\/v1\/events"/);
  const exits = cluster.processes.map((p) => p.exited);
  await cluster.stop();
  expect(await Promise.all(exits)).toEqual(cluster.processes.map(() => 'code 0'));
  expect(cluster.nginx.exitCode).toBe(0);
});
