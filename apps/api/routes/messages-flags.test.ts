import type { Stream } from '../../../generated/prisma/client';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let design: Stream;

beforeAll(async () => {
  org = await organization({
    members: { alice: 'member', bob: 'member', carol: 'guest' },
    channels: { design: ['alice', 'bob'] },
  });
  ({ t } = org);
  ({ alice, bob, carol } = org.users);
  ({ design } = org.channels);
});
afterAll(() => org.close());

const post = (path: string, who: TestUser, form: Record<string, string | number>) =>
  org.as(who).post(path, form);

const flagsOf = async (userId: number, messageId: number) =>
  (await t.db.userMessage.findUnique({ where: { userId_messageId: { userId, messageId } } }))
    ?.flags;

const lastEvent = async () => {
  const row = await t.db.outboxEvent.findFirstOrThrow({ orderBy: { id: 'desc' } });
  return { users: row.usersJson as number[], event: row.eventJson as Record<string, unknown> };
};

describe('POST /messages/flags', () => {
  it('adds and removes read and starred, listing only changed messages', async () => {
    const m1 = await postToChannel(t, org.realm, alice.user, design, 'a', 'one');
    const m2 = await postToChannel(t, org.realm, alice.user, design, 'a', 'two');
    const res = await post('/messages/flags', bob, {
      messages: JSON.stringify([m1]),
      op: 'add',
      flag: 'read',
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/flags', 'post', res.body);
    expect(res.body.messages).toEqual([m1]);
    const again = await post('/messages/flags', bob, {
      messages: JSON.stringify([m1, m2]),
      op: 'add',
      flag: 'read',
    });
    expect(again.body.messages).toEqual([m2]);
    expect(await lastEvent()).toEqual({
      users: [bob.user.id],
      event: {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: [m2],
        all: false,
      },
    });
    const star = await post('/messages/flags', bob, {
      messages: JSON.stringify([m2]),
      op: 'add',
      flag: 'starred',
    });
    expect(star.body.messages).toEqual([m2]);
    expect(await flagsOf(bob.user.id, m2)).toBe(3n);
    const unread = await post('/messages/flags', bob, {
      messages: JSON.stringify([m1]),
      op: 'remove',
      flag: 'read',
    });
    expect(unread.body).toMatchObject({
      messages: [m1],
      ignored_because_not_subscribed_channels: [],
    });
    const ev = await lastEvent();
    expect(ev.event.message_details).toEqual({
      [m1]: { type: 'stream', stream_id: design.id, topic: 'a', unmuted_stream_msg: true },
    });
  });

  it('creates a historical row when a non-subscriber stars a public channel message', async () => {
    const carolMember = await makeUser(t, org.realm);
    const m = await postToChannel(t, org.realm, alice.user, design, 'h', 'history');
    const res = await post('/messages/flags', carolMember, {
      messages: JSON.stringify([m]),
      op: 'add',
      flag: 'starred',
    });
    expect(res.body.messages).toEqual([m]);
    expect(await flagsOf(carolMember.user.id, m)).toBe(2n | 1n | 128n);
    const unread = await post('/messages/flags', carolMember, {
      messages: JSON.stringify([m]),
      op: 'remove',
      flag: 'read',
    });
    expect(unread.body).toMatchObject({
      messages: [],
      ignored_because_not_subscribed_channels: [design.id],
    });
  });

  it('refuses messages a guest cannot access and leaves nothing changed', async () => {
    const m = await postToChannel(t, org.realm, alice.user, design, 'g', 'guests cannot see');
    const res = await post('/messages/flags', carol, {
      messages: JSON.stringify([m]),
      op: 'add',
      flag: 'starred',
    });
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' });
    expect(await flagsOf(carol.user.id, m)).toBeUndefined();
  });

  it.each([
    [{ op: 'add', flag: 'mentioned' }, "Flag not editable: 'mentioned'"],
    [{ op: 'add', flag: 'historical' }, "Flag not editable: 'historical'"],
    [{ op: 'add', flag: 'bogus' }, "Invalid flag: 'bogus'"],
    [{ op: 'toggle', flag: 'read' }, "Invalid message flag operation: 'toggle'"],
  ])('rejects %j', async (form, msg) => {
    const m = await postDirect(t, org.realm, alice.user, [bob.user], 'x');
    const res = await post('/messages/flags', bob, { messages: JSON.stringify([m]), ...form });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg });
    expect(await flagsOf(bob.user.id, m)).toBe(256n);
  });
});

describe('POST /messages/flags/narrow', () => {
  it('marks a window of a narrow as read', async () => {
    const dm1 = await postDirect(t, org.realm, alice.user, [bob.user], 'n1');
    const dm2 = await postDirect(t, org.realm, alice.user, [bob.user], 'n2');
    const res = await post('/messages/flags/narrow', bob, {
      anchor: 'oldest',
      num_before: 0,
      num_after: 100,
      narrow: JSON.stringify([
        { operator: 'dm', operand: [alice.user.id] },
        { operator: 'is', operand: 'unread' },
      ]),
      op: 'add',
      flag: 'read',
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/flags/narrow', 'post', res.body);
    expect(res.body).toMatchObject({
      found_newest: true,
      found_oldest: true,
      last_processed_id: dm2,
    });
    expect(res.body.updated_count).toBeGreaterThanOrEqual(2);
    expect(await flagsOf(bob.user.id, dm1)).toBe(257n);
  });
});

describe('mark as read endpoints', () => {
  it('marks a topic, a channel, and everything as read', async () => {
    const a = await postToChannel(t, org.realm, alice.user, design, 'topic-a', 'x');
    const b = await postToChannel(t, org.realm, alice.user, design, 'topic-b', 'y');
    const d = await postDirect(t, org.realm, alice.user, [bob.user], 'z');
    const topic = await post('/mark_topic_as_read', bob, {
      stream_id: design.id,
      topic_name: 'topic-a',
    });
    expect(topic.status).toBe(200);
    expect(await flagsOf(bob.user.id, a)).toBe(1n);
    expect(await flagsOf(bob.user.id, b)).toBe(0n);
    await post('/mark_stream_as_read', bob, { stream_id: design.id });
    expect(await flagsOf(bob.user.id, b)).toBe(1n);
    expect(await flagsOf(bob.user.id, d)).toBe(256n);
    const all = await post('/mark_all_as_read', bob, {});
    expect(all.body).toMatchObject({ result: 'success', complete: true });
    expectOpenApiResponse('/mark_all_as_read', 'post', all.body);
    expect(await flagsOf(bob.user.id, d)).toBe(257n);
  });

  it('rejects unknown channels and topics', async () => {
    const bad = await post('/mark_stream_as_read', bob, { stream_id: 999999 });
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid channel ID' });
    const noTopic = await post('/mark_topic_as_read', bob, {
      stream_id: design.id,
      topic_name: 'nope',
    });
    expect(noTopic.body).toMatchObject({ code: 'BAD_REQUEST', msg: "No such topic 'nope'" });
    const guest = await post('/mark_stream_as_read', carol, { stream_id: design.id });
    expect(guest.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid channel ID' });
  });
});
