import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster, type Cluster } from '../../deploy/local/cluster';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { CLUSTER_SECRET_KEY, clusterApi, clusterEnv, form } from '../cluster-env';
import { startTestContext, type TestContext } from '../harness';

/**
 * Poll affinity (docs/scaling.md): events replicas with home partitions (`EVENTS_REPLICA`) and
 * Debian's nginx sending each poll to the home replica of its queue's partition, so the replica
 * that delivers a partition's events holds its polls and wakes them in memory.
 */
jest.setTimeout(240_000);

const BASE_PORT = 19580;
const PARTITIONS = 4;
let t: TestContext;
let cluster: Cluster;
let org: TestRealm;
let users: TestUser[];

beforeAll(async () => {
  t = await startTestContext({
    EXTERNAL_HOST: `127.0.0.1:${BASE_PORT}`,
    SECRET_KEY: CLUSTER_SECRET_KEY,
  });
  org = await makeRealm(t, { stringId: '' });
  // Users of every partition (a user's partition is its id modulo the partition count).
  users = [];
  while (new Set(users.map((u) => u.user.id % PARTITIONS)).size < PARTITIONS) {
    users.push(await makeUser(t, org.realm, {}));
  }
  cluster = await startCluster({
    dir: mkdtempSync(path.join(tmpdir(), 'chat-affinity-')),
    basePort: BASE_PORT,
    env: clusterEnv(t, { DISPATCH_PARTITIONS: String(PARTITIONS) }),
    replicas: { api: 1, events: 2, worker: 1 },
    pollAffinity: true,
  });
});
afterAll(async () => {
  await cluster?.stop();
  await t.close();
});

const api = clusterApi(() => cluster.url);
const metricsOf = async (name: string) =>
  (await fetch(`http://127.0.0.1:${cluster.byName(name).metricsPort}/metrics`)).text();
const waitingPolls = async (name: string) =>
  Number(/^chat_events_polls_waiting\{[^}]*\} (\d+)$/m.exec(await metricsOf(name))?.[1]);
const partitionsLed = async (name: string) =>
  (
    (await (await fetch(`http://127.0.0.1:${cluster.byName(name).port}/health`)).json()) as {
      partitions: number[];
    }
  ).partitions;

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it("sends each queue's polls to the replica leading its partition, which wakes them", async () => {
  // Replica i of 2 is home to the partitions p with p % 2 == i.
  await until(
    async () =>
      (await partitionsLed('events-1')).join() === '0,2' &&
      (await partitionsLed('events-2')).join() === '1,3',
    15_000,
  );
  expect(await partitionsLed('events-1')).toEqual([0, 2]);
  expect(await partitionsLed('events-2')).toEqual([1, 3]);

  const [sender] = users;
  const queues = await Promise.all(
    users.map(async (user) => {
      const res = await api('/register', user.auth, form({ event_types: '["message"]' }));
      const { queue_id: queueId } = (await res.json()) as { queue_id: string };
      expect(queueId.startsWith(`${user.user.id % PARTITIONS}:`)).toBe(true);
      return { user, queueId };
    }),
  );
  const polls = queues.map(async ({ user, queueId }) => {
    const res = await api(`/events?queue_id=${queueId}&last_event_id=-1`, user.auth);
    return ((await res.json()) as { events: { message?: { id: number } }[] }).events;
  });
  const homes = queues.map(({ user }) => `events-${((user.user.id % PARTITIONS) % 2) + 1}`);
  const expected = (name: string) => homes.filter((home) => home === name).length;
  await until(
    async () =>
      (await waitingPolls('events-1')) === expected('events-1') &&
      (await waitingPolls('events-2')) === expected('events-2'),
    10_000,
  );
  expect(await waitingPolls('events-1')).toBe(expected('events-1'));
  expect(await waitingPolls('events-2')).toBe(expected('events-2'));

  const sent = await api(
    '/messages',
    sender.auth,
    form({
      type: 'direct',
      to: JSON.stringify(users.slice(1).map((u) => u.user.id)),
      content: 'to every partition',
    }),
  );
  const { id } = (await sent.json()) as { id: number };
  for (const events of await Promise.all(polls)) {
    expect(events.map((e) => e.message?.id)).toEqual([id]);
  }
});

it("moves a stopped replica's polls and partitions to the other, and back when it returns", async () => {
  await cluster.kill('events-2', 'SIGTERM');
  await until(async () => (await partitionsLed('events-1')).length === PARTITIONS, 15_000);
  expect(await partitionsLed('events-1')).toEqual([0, 1, 2, 3]);
  const user = users.find((u) => u.user.id % 2 === 1) ?? users[0];
  const res = await api('/register', user.auth, form({ event_types: '["message"]' }));
  const { queue_id: queueId } = (await res.json()) as { queue_id: string };
  const poll = api(`/events?queue_id=${queueId}&last_event_id=-1`, user.auth);
  await until(async () => (await waitingPolls('events-1')) === 1, 10_000);
  const other = users.find((u) => u !== user) ?? users[0];
  await api(
    '/messages',
    other.auth,
    form({ type: 'direct', to: JSON.stringify([user.user.id]), content: 'while away' }),
  );
  const events = ((await (await poll).json()) as { events: { message?: { content: string } }[] })
    .events;
  expect(events.map((e) => e.message?.content)).toEqual(['while away']);

  await cluster.restart('events-2');
  await until(async () => (await partitionsLed('events-2')).join() === '1,3', 15_000);
  expect(await partitionsLed('events-1')).toEqual([0, 2]);
});
