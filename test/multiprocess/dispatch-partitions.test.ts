import request from 'supertest';
import { LEASE_MS } from '../../libs/events/dispatcher';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { startTestContext, type TestContext } from '../harness';
import { makeChannel } from '../channel-factories';
import { startTier, type Tier } from './processes';

/**
 * Two events processes share the dispatch partitions. One is killed with SIGKILL while messages
 * flow; the other takes its partitions over within the lease time, and every live queue still
 * receives each message once, in order.
 */
jest.setTimeout(120_000);

const USERS = 12;
const MESSAGES = 30;

let t: TestContext;
let org: TestRealm;
let sender: TestUser;
let users: TestUser[];
let api: Tier;
let events1: Tier;
let events2: Tier;

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  sender = await makeUser(t, org.realm, { fullName: 'Sender' });
  users = [];
  for (let i = 0; i < USERS; i++) {
    users.push(await makeUser(t, org.realm, { fullName: `Member ${i}` }));
  }
  await makeChannel(t, org.realm, {
    name: 'everyone',
    subscribers: [sender.user, ...users.map((u) => u.user)],
  });
  [api, events1, events2] = await Promise.all([
    startTier('api', t.config),
    startTier('events', t.config),
    startTier('events', t.config),
  ]);
});
afterAll(async () => {
  await Promise.all([api, events1, events2].map((tier) => tier?.stop()));
  await t.close();
});

const partitionsOf = async (tier: Tier): Promise<number[]> =>
  ((await (await fetch(`${tier.url}/health`)).json()) as { partitions: number[] }).partitions;

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Client {
  user: TestUser;
  queueId: string;
  last: number;
  contents: string[];
}

it('splits the partitions, and one replica takes over a killed one without loss', async () => {
  const all = [...Array(t.config.dispatchPartitions).keys()];
  const split = await until(
    async () => [await partitionsOf(events1), await partitionsOf(events2)],
    // Both may race for the leases at start; the split settles within a lease or two.
    ([a, b]) => a.length + b.length === all.length && Math.abs(a.length - b.length) <= 1,
    3 * LEASE_MS,
  );
  expect([...split[0], ...split[1]].sort((x, y) => x - y)).toEqual(all);
  expect(Math.abs(split[0].length - split[1].length)).toBeLessThanOrEqual(1);

  const clients: Client[] = [];
  for (const user of users) {
    const res = await request(api.url)
      .post('/api/v1/register')
      .set('Host', org.host)
      .set('Authorization', user.auth)
      .type('form')
      .send({ event_types: JSON.stringify(['message']), apply_markdown: 'false' });
    expect(res.status).toBe(200);
    clients.push({ user, queueId: res.body.queue_id as string, last: -1, contents: [] });
  }

  let takeover: Promise<{ partitions: number[]; ms: number }> | null = null;
  const sent: string[] = [];
  for (let m = 0; m < MESSAGES; m++) {
    if (m === MESSAGES / 3) {
      await events1.stop('SIGKILL');
      const killedAt = Date.now();
      takeover = until(
        () => partitionsOf(events2),
        (p) => p.length === all.length,
        3 * LEASE_MS,
      ).then((partitions) => ({ partitions, ms: Date.now() - killedAt }));
    }
    const content = `message ${m}`;
    const res = await request(api.url)
      .post('/api/v1/messages')
      .set('Host', org.host)
      .set('Authorization', sender.auth)
      .type('form')
      .send({ type: 'stream', to: 'everyone', topic: 'flow', content });
    expect(res.status).toBe(200);
    sent.push(content);
  }

  const taken = await takeover!;
  expect(taken.partitions).toEqual(all);
  // Within the lease time, plus a membership tick and a blocked read of slack.
  expect(taken.ms).toBeLessThanOrEqual(LEASE_MS + 2_500);

  await Promise.all(
    clients.map(async (c) => {
      const deadline = Date.now() + 30_000;
      while (c.contents.length < sent.length && Date.now() < deadline) {
        const res = await request(events2.url)
          .get('/api/v1/events')
          .set('Host', org.host)
          .set('Authorization', c.user.auth)
          .query({ queue_id: c.queueId, last_event_id: c.last, dont_block: true });
        expect(res.status).toBe(200);
        for (const e of res.body.events as { id: number; message: { content: string } }[]) {
          expect(e.id).toBeGreaterThan(c.last);
          c.last = e.id;
          c.contents.push(e.message.content);
        }
        if (c.contents.length < sent.length) await new Promise((r) => setTimeout(r, 100));
      }
    }),
  );
  for (const c of clients) expect(c.contents).toEqual(sent);
});
