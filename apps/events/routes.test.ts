import request from 'supertest';
import type { Stream } from '../../generated/prisma/client';
import { eventKeys, partitionOf } from '../../libs/events/keys';
import { inTransaction } from '../../libs/events/outbox';
import { sweepOutbox } from '../../libs/events/sweeper';
import type { TestUser } from '../../test/factories';
import type { EventBody } from '../../test/events-factories';
import type { TestContext } from '../../test/harness';
import { makeChannel } from '../../test/channel-factories';
import { postDirect, postToChannel } from '../../test/message-factories';
import { expectOpenApiResponse } from '../../test/openapi';
import { type Organization, organization } from '../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let design: Stream;

beforeAll(async () => {
  org = await organization({
    env: { HEARTBEAT_SECONDS: '1', EVENT_QUEUE_IDLE_SECONDS: '600' },
    events: true,
    members: { alice: 'member', bob: 'member', carol: 'member', guest: 'guest' },
    channels: { design: ['alice', 'bob'] },
  });
  ({ t } = org);
  ({ alice, bob, carol, guest } = org.users);
  ({ design } = org.channels);
});
afterAll(() => org.close());

const messagesOf = (events: EventBody[]) => events.filter((e) => e.type === 'message');

describe('GET /events', () => {
  it('answers at once with dont_block and an empty queue', async () => {
    const q = await org.register(alice);
    expect(q.last_event_id).toBe(-1);
    const res = await org.poll(alice, {
      queue_id: q.queue_id,
      last_event_id: -1,
      dont_block: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', events: [], queue_id: q.queue_id });
    expectOpenApiResponse('/events', 'get', res.body);
  });

  it('wakes a waiting long-poll with a message event, rendered per queue', async () => {
    const html = await org.register(bob, { apply_markdown: 'true' });
    const raw = await org.register(bob, { apply_markdown: 'false' });
    const waiting = org.poll(bob, {
      queue_id: html.queue_id,
      last_event_id: -1,
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const id = await postToChannel(t, org.realm, alice.user, design, 'plans', '**bold** move');
    const res = await waiting;
    expect(res.status).toBe(200);
    const [event] = res.body.events as EventBody[];
    expect(event).toMatchObject({ type: 'message', id: 0, flags: [] });
    const message = event.message as Record<string, unknown>;
    expect(message).toMatchObject({ id, content: '<p><strong>bold</strong> move</p>' });
    expect(message.content_type).toBe('text/html');
    expect(event).not.toHaveProperty('internal');
    expectOpenApiResponse('/events', 'get', res.body);

    const rawEvents = await org.eventsUntil(bob, raw.queue_id);
    const rawMessage = rawEvents[0].message as Record<string, unknown>;
    expect(rawMessage.content).toBe('**bold** move');
    expect(rawMessage.content_type).toBe('text/x-markdown');
  });

  it('acknowledges with last_event_id and keeps ids increasing', async () => {
    const q = await org.register(bob);
    await postToChannel(t, org.realm, alice.user, design, 'ack', 'one');
    await postToChannel(t, org.realm, alice.user, design, 'ack', 'two');
    const both = await org.eventsUntil(bob, q.queue_id, (e) => e.length >= 2);
    expect(both.map((e) => e.id)).toEqual([0, 1]);
    const rest = await org.poll(bob, {
      queue_id: q.queue_id,
      last_event_id: 0,
      dont_block: true,
    });
    expect((rest.body.events as EventBody[]).map((e) => e.id)).toEqual([1]);
    const none = await org.poll(bob, {
      queue_id: q.queue_id,
      last_event_id: 1,
      dont_block: true,
    });
    expect(none.body.events).toEqual([]);
    // Acknowledged events are gone even for a poll without last_event_id.
    const again = await org.poll(bob, {
      queue_id: q.queue_id,
      dont_block: true,
    });
    expect(again.body.events).toEqual([]);
  });

  it('answers a poll that waited the heartbeat interval with a heartbeat event', async () => {
    const q = await org.register(carol);
    const started = Date.now();
    const res = await org.poll(carol, {
      queue_id: q.queue_id,
      last_event_id: -1,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(res.body.events).toEqual([{ type: 'heartbeat', id: 0 }]);
    expectOpenApiResponse('/events', 'get', res.body);
  });

  it('refuses an unknown queue with BAD_EVENT_QUEUE_ID', async () => {
    const res = await org.poll(alice, {
      queue_id: 'nope',
      dont_block: true,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Bad event queue ID: nope',
      code: 'BAD_EVENT_QUEUE_ID',
      queue_id: 'nope',
    });
  });

  it("refuses another user's queue", async () => {
    const q = await org.register(alice);
    const res = await org.poll(bob, {
      queue_id: q.queue_id,
      dont_block: true,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'You are not authorized to get events from this queue',
    });
  });

  it('registers a queue on the fly when no queue_id is given', async () => {
    const res = await org.poll(alice, {
      dont_block: true,
      event_types: JSON.stringify(['message']),
    });
    expect(res.status).toBe(200);
    expect(typeof res.body.queue_id).toBe('string');
    await postToChannel(t, org.realm, bob.user, design, 'fly', 'hello');
    const got = await org.eventsUntil(alice, res.body.queue_id);
    expect(messagesOf(got)).toHaveLength(1);
  });

  it('refuses on-the-fly all_public_streams queues for guests', async () => {
    const res = await org.poll(guest, {
      dont_block: true,
      all_public_streams: true,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'User not authorized for this query',
      code: 'BAD_REQUEST',
    });
  });

  it('needs authentication', async () => {
    const res = await request(org.events.app)
      .get('/api/v1/events')
      .set('Host', org.host)
      .query({ queue_id: 'x' });
    expect(res.status).toBe(401);
  });
});

describe('DELETE /events', () => {
  it('deletes the queue; later polls get BAD_EVENT_QUEUE_ID', async () => {
    const q = await org.register(alice);
    const del = await request(org.events.app)
      .delete('/api/v1/events')
      .set('Host', org.host)
      .set('Authorization', alice.auth)
      .type('form')
      .send({ queue_id: q.queue_id });
    expect(del.body).toEqual({ result: 'success', msg: '' });
    const res = await org.poll(alice, {
      queue_id: q.queue_id,
      dont_block: true,
    });
    expect(res.body.code).toBe('BAD_EVENT_QUEUE_ID');
  });

  it('refuses unknown and foreign queues, and a missing queue_id', async () => {
    const q = await org.register(alice);
    const call = (auth: string, form: Record<string, string>) =>
      request(org.events.app)
        .delete('/api/v1/events')
        .set('Host', org.host)
        .set('Authorization', auth)
        .type('form')
        .send(form);
    expect((await call(alice.auth, { queue_id: 'gone' })).body.code).toBe('BAD_EVENT_QUEUE_ID');
    expect((await call(bob.auth, { queue_id: q.queue_id })).body.code).toBe('BAD_REQUEST');
    expect((await call(alice.auth, {})).body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'queue_id',
    });
    expect(await t.redis.exists(eventKeys(t.config.redisPrefix).queue(q.queue_id))).toBe(1);
  });
});

describe('filtering', () => {
  it('honours event_types', async () => {
    const q = await org.register(bob, { event_types: JSON.stringify(['typing']) });
    await postToChannel(t, org.realm, alice.user, design, 'types', 'not for this queue');
    await org.as(alice).post('/typing', { op: 'start', to: JSON.stringify([bob.user.id]) });
    const got = await org.eventsUntil(bob, q.queue_id);
    expect(got.map((e) => e.type)).toEqual(['typing']);
  });

  it('honours a narrow', async () => {
    const q = await org.register(bob, { narrow: JSON.stringify([['is', 'dm']]) });
    await postToChannel(t, org.realm, alice.user, design, 'narrow', 'channel message');
    const dm = await postDirect(t, org.realm, alice.user, [bob.user], 'direct message');
    const got = await org.eventsUntil(bob, q.queue_id);
    expect(messagesOf(got).map((e) => (e.message as { id: number }).id)).toEqual([dm]);
  });

  it('delivers public channel messages to all_public_streams queues of non-subscribers', async () => {
    const q = await org.register(carol, { all_public_streams: 'true' });
    const plain = await org.register(carol);
    const id = await postToChannel(t, org.realm, alice.user, design, 'public', 'for everyone');
    await org.eventsUntil(carol, q.queue_id);
    // The message travels in one envelope per flag set (sender's copy is read); it arrives once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const got = await org.eventsUntil(carol, q.queue_id, () => true);
    expect(messagesOf(got).map((e) => (e.message as { id: number }).id)).toEqual([id]);
    expect(got[0].flags).toEqual([]);
    const none = await org.poll(carol, {
      queue_id: plain.queue_id,
      dont_block: true,
    });
    expect(none.body.events).toEqual([]);
  });

  it('keeps private channel messages from all_public_streams queues', async () => {
    const secret = await makeChannel(t, org.realm, {
      inviteOnly: true,
      subscribers: [alice.user],
    });
    const q = await org.register(carol, { all_public_streams: 'true' });
    await postToChannel(t, org.realm, alice.user, secret, 'hidden', 'secret');
    await postDirect(t, org.realm, alice.user, [carol.user], 'marker');
    const got = await org.eventsUntil(carol, q.queue_id);
    expect(messagesOf(got).map((e) => (e.message as { content: string }).content)).toEqual([
      'marker',
    ]);
  });
});

describe('legacy settings events', () => {
  it('adds update_display_settings for queues without user_settings_object', async () => {
    const legacy = await org.register(alice);
    const modern = await org.register(alice, {
      client_capabilities: JSON.stringify({ user_settings_object: true }),
    });
    const res = await org.as(alice).patch('/settings', { twenty_four_hour_time: 'true' });
    expect(res.status).toBe(200);
    const old = await org.eventsUntil(alice, legacy.queue_id, (e) => e.length >= 2);
    expect(old.map((e) => e.type)).toEqual(['user_settings', 'update_display_settings']);
    expect(old[1]).toEqual({
      type: 'update_display_settings',
      id: 1,
      user: alice.email,
      setting_name: 'twenty_four_hour_time',
      setting: true,
    });
    const fresh = await org.eventsUntil(alice, modern.queue_id);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const all = await org.poll(alice, {
      queue_id: modern.queue_id,
      dont_block: true,
    });
    expect(fresh.map((e) => e.type)).toEqual(['user_settings']);
    expect((all.body.events as EventBody[]).map((e) => e.type)).toEqual(['user_settings']);
  });
});

describe('delivery guarantees', () => {
  it('delivers a re-published outbox row once', async () => {
    const q = await org.register(bob);
    const outboxId = await inTransaction(t, async (_tx, events) => {
      await events.emit(org.realm.id, { type: 'alert_words', alert_words: ['x'] }, [bob.user.id]);
      await events.flush();
      return events.rows[0].id;
    });
    const envelope = JSON.stringify({
      outboxId: outboxId.toString(),
      realmId: org.realm.id,
      users: [bob.user.id],
      event: { type: 'alert_words', alert_words: ['x'] },
    });
    const partition = partitionOf(bob.user.id, t.config.dispatchPartitions);
    await t.redis.xadd(
      eventKeys(t.config.redisPrefix).domainStream(partition),
      '*',
      'envelope',
      envelope,
    );
    await postDirect(t, org.realm, alice.user, [bob.user], 'after');
    const got = await org.eventsUntil(bob, q.queue_id, (e) => e.some((x) => x.type === 'message'));
    expect(got.map((e) => e.type)).toEqual(['alert_words', 'message']);
  });

  it('sweeps outbox rows a crashed process never published', async () => {
    const q = await org.register(bob);
    const left = await t.db.outboxEvent.create({
      data: {
        realmId: org.realm.id,
        eventJson: { type: 'alert_words', alert_words: ['swept'] },
        usersJson: [bob.user.id],
        createdAt: new Date(Date.now() - 60_000),
      },
    });
    expect(await sweepOutbox(t)).toBeGreaterThanOrEqual(0);
    const got = await org.eventsUntil(bob, q.queue_id);
    expect(got).toEqual([{ type: 'alert_words', alert_words: ['swept'], id: 0 }]);
    expect(await t.db.outboxEvent.findUnique({ where: { id: left.id } })).toMatchObject({
      publishedAt: expect.any(Date),
    });
  });

  it('garbage-collects idle queues', async () => {
    const q = await org.register(bob);
    const removed = await org.events.tier.store.collectGarbage(Date.now() + 601_000);
    expect(removed).toBeGreaterThanOrEqual(1);
    const res = await org.poll(bob, {
      queue_id: q.queue_id,
      dont_block: true,
    });
    expect(res.body.code).toBe('BAD_EVENT_QUEUE_ID');
    expect(
      await t.redis.sismember(
        eventKeys(t.config.redisPrefix).userQueues(
          partitionOf(bob.user.id, t.config.dispatchPartitions),
          bob.user.id,
        ),
        q.queue_id,
      ),
    ).toBe(0);
  });
});

describe('POST /register and changes committed around it', () => {
  const alertWords = (alert_words: string[]) =>
    t.db.outboxEvent.create({
      data: {
        realmId: org.realm.id,
        eventJson: { type: 'alert_words', alert_words },
        usersJson: [carol.user.id],
      },
    });

  it('hands out each change once: in the initial state or as an event, never both', async () => {
    // Committed before registering, published only afterwards (a lagging dispatcher).
    await alertWords(['early']);
    const covered = await org.register(carol);
    const uncovered = await org.register(carol, {
      fetch_event_types: JSON.stringify(['message']),
    });
    await alertWords(['late']);
    await sweepOutbox(t, 0);
    const hasLate = (events: EventBody[]) =>
      events.some((e) => (e.alert_words as string[] | undefined)?.includes('late'));
    const fromCovered = await org.eventsUntil(carol, covered.queue_id, hasLate);
    expect(fromCovered.map((e) => e.alert_words)).toEqual([['late']]);
    // A queue whose state did not include alert words still needs the early change.
    const fromUncovered = await org.eventsUntil(carol, uncovered.queue_id, hasLate);
    expect(fromUncovered.map((e) => e.alert_words)).toEqual([['early'], ['late']]);
  });
});
