import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { attachmentKey } from '../../libs/domain/attachments/storage';
import { uploadStore } from '../../libs/storage/upload-store';
import { organization, type Organization } from '../organization';
import {
  RACE_ENV,
  RACE_SIZE,
  raceServer,
  serverErrors,
  type Answer,
  type RaceServer,
} from './race';

/**
 * Issue 42: races on subscriptions, users, channels, bots and uploads, sent at once over HTTP
 * against the real database. Each checks the final state and that no answer is a 5xx.
 */
let org: Organization<'alice' | 'bob' | 'carol' | 'sender' | 'speaker', 'design' | 'news'>;
let server: RaceServer;
const uploads = mkdtempSync(path.join(tmpdir(), 'race-uploads-'));

// Races and their organization on a busy machine take longer than one request.
jest.setTimeout(120_000);

beforeAll(async () => {
  org = await organization({
    env: { ...RACE_ENV, UPLOADS_DIR: uploads },
    members: {
      alice: 'member',
      bob: 'member',
      carol: 'member',
      sender: 'member',
      speaker: 'member',
    },
    channels: { design: ['alice', 'bob'], news: ['alice', 'bob', 'sender', 'speaker'] },
  });
  server = await raceServer(org);
});
afterAll(async () => {
  await server.close();
  await org.close();
  rmSync(uploads, { recursive: true, force: true });
});

const eventsOfType = async (type: string) =>
  (await org.t.db.outboxEvent.findMany({ orderBy: { id: 'asc' } }))
    .map((r) => ({ event: r.eventJson as Record<string, unknown>, users: r.usersJson as number[] }))
    .filter((r) => r.event.type === type);

describe('subscribe and unsubscribe races', () => {
  it('one user subscribing and unsubscribing at once ends as the answers say', async () => {
    const carol = org.users.carol;
    const before = (await eventsOfType('subscription')).length;
    const calls = Array.from({ length: RACE_SIZE }, (_, i) =>
      i % 2 === 0
        ? {
            who: carol,
            method: 'post' as const,
            path: '/users/me/subscriptions',
            form: { subscriptions: JSON.stringify([{ name: 'design' }]) },
          }
        : {
            who: carol,
            method: 'delete' as const,
            path: '/users/me/subscriptions',
            form: { subscriptions: JSON.stringify(['design']) },
          },
    );
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(calls.map(() => 200));
    const me = String(carol.user.id);
    const subscribed = answers.filter(
      (a, i) =>
        calls[i].method === 'post' &&
        ((a.body.subscribed as Record<string, string[]>)[me] ?? []).length === 1,
    ).length;
    const removed = answers.filter(
      (a, i) => calls[i].method === 'delete' && (a.body.removed as string[]).length === 1,
    ).length;
    const rows = await org.t.db.subscription.findMany({
      where: { userId: carol.user.id, recipientId: org.channels.design.recipientId as number },
    });
    expect(rows.length).toBeLessThanOrEqual(1);
    const active = rows.filter((r) => r.active).length;
    // Successful subscribes and unsubscribes alternate, starting unsubscribed.
    expect(subscribed - removed).toBe(active);
    const mine = (await eventsOfType('subscription'))
      .slice(before)
      .filter((r) => r.users.includes(carol.user.id));
    expect(mine.filter((r) => r.event.op === 'add')).toHaveLength(subscribed);
    expect(mine.filter((r) => r.event.op === 'remove')).toHaveLength(removed);
  });

  it('users subscribing at once to a channel nobody created yet share one channel', async () => {
    const people = [org.users.alice, org.users.bob, org.users.carol, org.owner];
    const calls = Array.from({ length: RACE_SIZE }, (_, i) => ({
      who: people[i % people.length],
      method: 'post' as const,
      path: '/users/me/subscriptions',
      form: { subscriptions: JSON.stringify([{ name: 'brand new' }]) },
    }));
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(calls.map(() => 200));
    const channels = await org.t.db.stream.findMany({
      where: { realmId: org.realm.id, name: 'brand new' },
    });
    expect(channels).toHaveLength(1);
    const subs = await org.t.db.subscription.findMany({
      where: { recipientId: channels[0].recipientId as number, active: true },
    });
    expect(subs.map((s) => s.userId).sort((a, b) => a - b)).toEqual(
      people.map((p) => p.user.id).sort((a, b) => a - b),
    );
    // Each person was told once that they were subscribed.
    const subscribedOnce = people.map(
      (p) =>
        answers.filter(
          (a, i) =>
            calls[i].who === p &&
            ((a.body.subscribed as Record<string, string[]>)[String(p.user.id)] ?? []).length,
        ).length,
    );
    expect(subscribedOnce).toEqual(people.map(() => 1));
    const creations = (await eventsOfType('stream')).filter((r) => r.event.op === 'create');
    expect(creations.filter((r) => JSON.stringify(r.event).includes('brand new'))).toHaveLength(1);
  });
});

describe('a user deactivated while sending', () => {
  it('answers each send with success or a refusal, and refuses sends after it', async () => {
    const { sender } = org.users;
    const sends = Array.from({ length: RACE_SIZE }, (_, i) => ({
      who: sender,
      method: 'post' as const,
      path: '/messages',
      form: { type: 'stream', to: 'news', topic: 'last words', content: `message ${i}` },
    }));
    const deactivate = {
      who: org.owner,
      method: 'delete' as const,
      path: `/users/${sender.user.id}`,
    };
    const calls = [...sends.slice(0, RACE_SIZE / 2), deactivate, ...sends.slice(RACE_SIZE / 2)];
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    expect(answers[RACE_SIZE / 2].status).toBe(200);
    const sent = answers.filter((a, i) => calls[i] !== deactivate && a.status === 200);
    for (const a of answers.filter((x, i) => calls[i] !== deactivate && x.status !== 200)) {
      expect(a.status).toBe(401);
      expect(a.body.code).toBe('USER_DEACTIVATED');
    }
    // A message exists exactly for each send that succeeded.
    const messages = await org.t.db.message.findMany({ where: { senderId: sender.user.id } });
    expect(messages.map((m) => m.id).sort()).toEqual(sent.map((a) => a.body.id as number).sort());
    const after = await server.race(sends.slice(0, 2));
    expect(after.map((a) => a.status)).toEqual([401, 401]);
    expect(await org.t.db.message.count({ where: { senderId: sender.user.id } })).toBe(sent.length);
  });
});

describe('no message commits after its sender was deactivated', () => {
  /**
   * The race made certain: a connection of the test's holds the channel's recipient row, which
   * each send's insert must share-lock at its end (the message's foreign key), so 20 sends that
   * passed every check wait just before committing. The sender is deactivated meanwhile; only
   * then is the row let go. A send path that does not hold the sender's row lets the
   * deactivation commit first and the waiting messages after it (each send then answers 200 from
   * a deactivated account); this one makes the deactivation wait for them.
   */
  it('makes the deactivation wait for messages in flight, and refuses the later ones', async () => {
    const { speaker, alice } = org.users;
    const { news } = org.channels;
    const send = (i: number) => ({
      who: speaker,
      method: 'post' as const,
      path: '/messages',
      form: { type: 'stream', to: news.id, topic: 'in flight', content: `in flight ${i}` },
    });
    // The channel's first message is written otherwise (a transaction): not the common path.
    await org
      .as(alice)
      .post('/messages', { type: 'stream', to: news.id, topic: 'x', content: 'x' });
    const spoken = () => org.t.db.message.count({ where: { senderId: speaker.user.id } });
    const waiting = async (query: string) =>
      Number(
        (
          await org.t.db.$queryRaw<{ n: bigint }[]>`
            SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query ILIKE ${`%${query}%`}`
        )[0].n,
      );
    const until = async (check: () => Promise<boolean>, ms = 20_000) => {
      for (const end = Date.now() + ms; Date.now() < end;) {
        if (await check()) return true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return false;
    };

    const holder = new Client({ connectionString: org.t.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM recipients WHERE id = $1 FOR UPDATE', [news.recipientId]);
      const sends = server.race(Array.from({ length: RACE_SIZE }, (_, i) => send(i)));
      expect(await until(async () => (await waiting('INSERT INTO messages')) > 0)).toBe(true);
      let committedBefore: number | undefined;
      let answered = false;
      const deactivation = server
        .race([{ who: org.owner, method: 'delete', path: `/users/${speaker.user.id}` }])
        .then(async ([answer]) => {
          answered = true;
          committedBefore = await spoken();
          return answer;
        });
      // Either the deactivation commits (the messages held back then commit after it), or it
      // waits for the senders' lock on the sender's row.
      await until(async () => answered || (await waiting('FOR UPDATE')) > 0);
      await holder.query('COMMIT');
      const answers = await sends;
      expect((await deactivation).status).toBe(200);
      expect(serverErrors(answers)).toEqual([]);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect([a.status, a.body.code]).toEqual([401, 'USER_DEACTIVATED']);
      }
      const sent = answers.filter((a) => a.status === 200).map((a) => a.body.id as number);
      const messages = await org.t.db.message.findMany({ where: { senderId: speaker.user.id } });
      expect(messages.map((m) => m.id).sort()).toEqual(sent.sort());
      // What existed when the deactivation had committed is all there is.
      expect(await spoken()).toBe(committedBefore);
    } finally {
      await holder.end();
    }
  });
});

describe('a channel renamed while messages are sent to it', () => {
  it('delivers every message to the renamed channel', async () => {
    const { news } = org.channels;
    const sends = Array.from({ length: RACE_SIZE }, (_, i) => ({
      who: org.users.alice,
      method: 'post' as const,
      path: '/messages',
      form: { type: 'stream', to: news.id, topic: 'rename', content: `during rename ${i}` },
    }));
    const rename = {
      who: org.owner,
      method: 'patch' as const,
      path: `/streams/${news.id}`,
      form: { new_name: 'headlines' },
    };
    const calls = [...sends.slice(0, RACE_SIZE / 2), rename, ...sends.slice(RACE_SIZE / 2)];
    const answers = await server.race(calls);
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.map((a) => a.status)).toEqual(calls.map(() => 200));
    const channel = await org.t.db.stream.findUniqueOrThrow({ where: { id: news.id } });
    expect(channel.name).toBe('headlines');
    const messages = await org.t.db.message.findMany({
      where: { recipientId: news.recipientId as number, subject: 'rename' },
    });
    expect(messages).toHaveLength(RACE_SIZE);
    const renames = (await eventsOfType('stream')).filter(
      (r) => r.event.op === 'update' && r.event.property === 'name',
    );
    expect(renames).toHaveLength(1);
  });
});

describe('bots created at once with one short name', () => {
  it('creates one; the others get the answer they would get without the race', async () => {
    const answers = await server.race(
      Array.from({ length: RACE_SIZE }, () => ({
        who: org.users.alice,
        method: 'post' as const,
        path: '/bots',
        form: { full_name: 'Racing bot', short_name: 'racer' },
      })),
    );
    expect(serverErrors(answers)).toEqual([]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(a.body.msg).toBe('Username already in use');
    }
    expect(
      await org.t.db.user.count({
        where: { realmId: org.realm.id, email: { startsWith: 'racer-bot@' } },
      }),
    ).toBe(1);
  });
});

describe('uploads named with 5,000 characters', () => {
  it('are refused or stored under a shortened name, never a 500', async () => {
    const name = `${'n'.repeat(5000)}.txt`;
    const answers: Answer[] = await Promise.all(
      Array.from({ length: RACE_SIZE }, async () => {
        const res = await org
          .as(org.users.alice)
          .post('/user_uploads')
          .attach('file', Buffer.from('long name'), { filename: name, contentType: 'text/plain' });
        return { status: res.status, body: res.body as Answer['body'] };
      }),
    );
    expect(answers.filter((a) => a.status >= 500).map((a) => a.body)).toEqual([]);
    const stored = answers.filter((a) => a.status === 200);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.status).toBe(400);
    for (const a of stored) {
      const pathId = (a.body.url as string).slice('/user_uploads/'.length);
      expect(Buffer.byteLength(pathId.split('/').pop() as string)).toBeLessThanOrEqual(255);
      expect(await uploadStore(org.t.config).exists(attachmentKey(pathId))).toBe(true);
    }
    expect(await org.t.db.attachment.count({ where: { ownerId: org.users.alice.user.id } })).toBe(
      stored.length,
    );
  });
});
