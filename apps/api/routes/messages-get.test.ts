import request from 'supertest';
import type { Stream } from '../../../generated/prisma/client';
import { Role } from '../../../libs/domain/users/roles';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { makeChannel, postDirect, postToChannel, subscribe } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';

let t: TestContext;
let org: TestRealm;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let design: Stream;
let secret: Stream;
const ids: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  alice = await makeUser(t, org.realm, { fullName: 'Alice Member' });
  bob = await makeUser(t, org.realm, { fullName: 'Bob Member' });
  carol = await makeUser(t, org.realm, { fullName: 'Carol Late' });
  guest = await makeUser(t, org.realm, { role: Role.GUEST });
  design = await makeChannel(t, org.realm, { name: 'design', subscribers: [alice.user, bob.user] });
  secret = await makeChannel(t, org.realm, {
    name: 'secret',
    inviteOnly: true,
    historyPublicToSubscribers: false,
    subscribers: [alice.user],
  });
  const r = org.realm;
  ids.first = await postToChannel(
    t,
    r,
    alice.user,
    design,
    'plans',
    'first **plan** https://example.com',
  );
  ids.mention = await postToChannel(
    t,
    r,
    alice.user,
    design,
    'plans',
    '@**Bob Member** deploy the database',
  );
  ids.other = await postToChannel(t, r, bob.user, design, 'other', 'unrelated words');
  ids.dm = await postDirect(t, r, alice.user, [bob.user], 'private hello');
  ids.secretOld = await postToChannel(t, r, alice.user, secret, 'x', 'before carol');
  await subscribe(t, secret, [carol.user]);
  ids.secretNew = await postToChannel(t, r, alice.user, secret, 'x', 'after carol');
  ids.resolved = await postToChannel(t, r, bob.user, design, '✔ done', 'fixed');
});
afterAll(() => t.close());

const get = (auth: string, query: Record<string, string | number | boolean>) =>
  request(t.app)
    .get('/api/v1/messages')
    .set('Host', org.host)
    .set('Authorization', auth)
    .query(query);

const fetchIds = async (
  auth: string,
  narrow: unknown[],
  extra: Record<string, string | number> = {},
) => {
  const res = await get(auth, {
    anchor: 'newest',
    num_before: 100,
    num_after: 0,
    narrow: JSON.stringify(narrow),
    ...extra,
  });
  expect(res.status).toBe(200);
  return (res.body.messages as { id: number }[]).map((m) => m.id);
};

/** Fields newer than the OpenAPI reference (FL 247) inside message objects. */
const stripNewer = (body: { messages?: Record<string, unknown>[] }) => ({
  ...body,
  messages: (body.messages ?? []).map(({ last_moved_timestamp: _l, ...m }) => m),
});

describe('GET /messages', () => {
  it('returns messages another user sent with every field in Zulip shape', async () => {
    const res = await get(bob.auth, {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: JSON.stringify([{ operator: 'channel', operand: 'design' }]),
      client_gravatar: 'false',
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages', 'get', stripNewer(res.body));
    expect(res.body).toMatchObject({
      result: 'success',
      found_newest: true,
      found_oldest: true,
      found_anchor: false,
      history_limited: false,
      anchor: 10000000000000000,
    });
    const first = res.body.messages.find((m: { id: number }) => m.id === ids.first);
    expect(first).toEqual({
      id: ids.first,
      type: 'stream',
      stream_id: design.id,
      subject: 'plans',
      content: expect.stringContaining('<strong>plan</strong>'),
      content_type: 'text/html',
      timestamp: expect.any(Number),
      client: 'test',
      avatar_url: expect.stringContaining('gravatar'),
      display_recipient: 'design',
      recipient_id: design.recipientId,
      sender_id: alice.user.id,
      sender_email: alice.email,
      sender_full_name: 'Alice Member',
      sender_realm_str: org.realm.stringId,
      is_me_message: false,
      reactions: [],
      submessages: [],
      topic_links: [],
      flags: [],
    });
    const mention = res.body.messages.find((m: { id: number }) => m.id === ids.mention);
    expect(mention.flags).toEqual(['mentioned']);
  });

  it('returns raw Markdown with apply_markdown=false and DMs with user display_recipient', async () => {
    const res = await get(bob.auth, {
      anchor: ids.dm,
      num_before: 0,
      num_after: 0,
      apply_markdown: 'false',
    });
    expect(res.body.found_anchor).toBe(true);
    expect(res.body.messages).toHaveLength(1);
    const [dm] = res.body.messages;
    expect(dm).toMatchObject({
      type: 'private',
      subject: '',
      content: 'private hello',
      content_type: 'text/x-markdown',
    });
    expect(dm.display_recipient.map((u: { id: number }) => u.id)).toEqual(
      [alice.user.id, bob.user.id].sort((a, b) => a - b),
    );
    expect(dm).not.toHaveProperty('stream_id');
  });

  it('narrows by topic, sender, dm, dm-including, is, has, id, search and negation', async () => {
    const topic = [
      { operator: 'channel', operand: design.id },
      { operator: 'topic', operand: 'plans' },
    ];
    expect(await fetchIds(bob.auth, topic)).toEqual([ids.first, ids.mention]);
    expect(await fetchIds(bob.auth, [{ operator: 'sender', operand: bob.user.id }])).toEqual([
      ids.other,
      ids.resolved,
    ]);
    expect(await fetchIds(bob.auth, [['pm-with', alice.email]])).toEqual([ids.dm]);
    expect(await fetchIds(bob.auth, [{ operator: 'dm', operand: [alice.user.id] }])).toEqual([
      ids.dm,
    ]);
    expect(
      await fetchIds(bob.auth, [{ operator: 'dm-including', operand: alice.user.id }]),
    ).toEqual([ids.dm]);
    expect(await fetchIds(bob.auth, [{ operator: 'is', operand: 'dm' }])).toEqual([ids.dm]);
    expect(await fetchIds(bob.auth, [{ operator: 'is', operand: 'mentioned' }])).toEqual([
      ids.mention,
    ]);
    expect(await fetchIds(bob.auth, [{ operator: 'is', operand: 'resolved' }])).toEqual([
      ids.resolved,
    ]);
    expect(await fetchIds(bob.auth, [{ operator: 'has', operand: 'link' }])).toEqual([ids.first]);
    expect(await fetchIds(bob.auth, [{ operator: 'id', operand: ids.other }])).toEqual([ids.other]);
    expect(
      await fetchIds(bob.auth, [
        { operator: 'is', operand: 'dm', negated: true },
        { operator: 'topic', operand: 'plans', negated: true },
      ]),
    ).toEqual([ids.other, ids.resolved]);
    expect(
      await fetchIds(bob.auth, [
        { operator: 'near', operand: ids.first },
        { operator: 'is', operand: 'starred' },
      ]),
    ).toEqual([]);
  });

  it('searches with full-text search and highlights matches', async () => {
    const res = await get(bob.auth, {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: JSON.stringify([{ operator: 'search', operand: 'databases' }]),
    });
    expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.mention]);
    expect(res.body.messages[0].match_content).toContain('<span class="highlight">database</span>');
    expect(res.body.messages[0].match_subject).toBe('plans');
  });

  it('shows public channel history to a non-subscriber with the historical flag', async () => {
    const res = await get(carol.auth, {
      anchor: 'oldest',
      num_before: 0,
      num_after: 10,
      narrow: JSON.stringify([{ operator: 'channel', operand: 'design' }]),
    });
    expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([
      ids.first,
      ids.mention,
      ids.other,
      ids.resolved,
    ]);
    expect(res.body.messages[0].flags).toEqual(['read', 'historical']);
    expect(res.body.found_oldest).toBe(true);
    // Without a channel narrow, only received messages.
    expect(await fetchIds(carol.auth, [])).toEqual([ids.secretNew]);
    expect(await fetchIds(carol.auth, [{ operator: 'channels', operand: 'public' }])).toEqual([
      ids.first,
      ids.mention,
      ids.other,
      ids.resolved,
    ]);
  });

  it('hides protected private-channel history from later subscribers and guests see no public history', async () => {
    expect(await fetchIds(carol.auth, [{ operator: 'channel', operand: 'secret' }])).toEqual([
      ids.secretNew,
    ]);
    expect(await fetchIds(alice.auth, [{ operator: 'channel', operand: 'secret' }])).toEqual([
      ids.secretOld,
      ids.secretNew,
    ]);
    expect(await fetchIds(guest.auth, [{ operator: 'channel', operand: 'design' }])).toEqual([]);
  });

  it('handles anchors, include_anchor and windows', async () => {
    const res = await get(bob.auth, {
      anchor: ids.mention,
      num_before: 1,
      num_after: 1,
      include_anchor: 'false',
    });
    expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.first, ids.other]);
    expect(res.body).toMatchObject({
      anchor: ids.mention,
      found_anchor: false,
      found_oldest: true,
      found_newest: false,
    });
    const unread = await get(bob.auth, { anchor: 'first_unread', num_before: 0, num_after: 1 });
    expect(unread.body.anchor).toBe(ids.first);
    expect(unread.body.found_anchor).toBe(true);
  });

  it.each([
    [
      { anchor: 'newest', num_before: 1 },
      'REQUEST_VARIABLE_MISSING',
      "Missing 'num_after' argument",
    ],
    [{ num_before: 1, num_after: 1 }, 'REQUEST_VARIABLE_MISSING', "Missing 'anchor' argument"],
    [{ anchor: 'sideways', num_before: 1, num_after: 1 }, 'BAD_REQUEST', 'Invalid anchor'],
    [
      { anchor: 'newest', num_before: 4000, num_after: 2000 },
      'BAD_REQUEST',
      'Too many messages requested (maximum 5000).',
    ],
    [
      {
        anchor: 'newest',
        num_before: 1,
        num_after: 0,
        narrow: '[{"operator":"channel","operand":"nope"}]',
      },
      'BAD_NARROW',
      'Invalid narrow operator: unknown channel',
    ],
    [
      {
        anchor: 'newest',
        num_before: 1,
        num_after: 0,
        narrow: '[{"operator":"is","operand":"weird"}]',
      },
      'BAD_NARROW',
      "Invalid narrow operator: unknown 'is' operand weird",
    ],
    [
      {
        anchor: 'newest',
        num_before: 1,
        num_after: 0,
        narrow: '[{"operator":"bogus","operand":"x"}]',
      },
      'BAD_NARROW',
      'Invalid narrow operator: unknown operator bogus',
    ],
    [
      { anchor: 'newest', num_before: 1, num_after: 0, narrow: 'not json' },
      'BAD_REQUEST',
      'Argument "narrow" is not valid JSON.',
    ],
  ])('rejects %j', async (query, code, msg) => {
    const res = await get(bob.auth, query as Record<string, string | number>);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: 'error', code, msg });
  });
});

describe('GET /messages/{id}', () => {
  it('returns the message with flags and raw_content', async () => {
    const res = await request(t.app)
      .get(`/api/v1/messages/${ids.mention}`)
      .set('Host', org.host)
      .set('Authorization', bob.auth);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/{message_id}', 'get', res.body);
    expect(res.body.raw_content).toBe('@**Bob Member** deploy the database');
    expect(res.body.message).toMatchObject({ id: ids.mention, flags: ['mentioned'] });
  });

  it('refuses messages the user cannot access', async () => {
    for (const [auth, id] of [
      [carol.auth, ids.secretOld],
      [carol.auth, ids.dm],
      [bob.auth, 99999999],
    ] as const) {
      const res = await request(t.app)
        .get(`/api/v1/messages/${id}`)
        .set('Host', org.host)
        .set('Authorization', auth);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' });
    }
  });
});

describe('GET /messages/matches_narrow and POST /messages/render', () => {
  it('reports which messages match', async () => {
    const res = await request(t.app)
      .get('/api/v1/messages/matches_narrow')
      .set('Host', org.host)
      .set('Authorization', bob.auth)
      .query({
        msg_ids: JSON.stringify([ids.first, ids.other]),
        narrow: JSON.stringify([{ operator: 'topic', operand: 'plans' }]),
      });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/matches_narrow', 'get', res.body);
    expect(Object.keys(res.body.messages)).toEqual([String(ids.first)]);
    expect(res.body.messages[ids.first].match_subject).toBe('plans');
  });

  it('renders without storing', async () => {
    const before = await t.db.message.count();
    const res = await request(t.app)
      .post('/api/v1/messages/render')
      .set('Host', org.host)
      .set('Authorization', bob.auth)
      .type('form')
      .send({ content: '**bold**' });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/render', 'post', res.body);
    expect(res.body.rendered).toBe('<p><strong>bold</strong></p>');
    expect(await t.db.message.count()).toBe(before);
    const empty = await request(t.app)
      .post('/api/v1/messages/render')
      .set('Host', org.host)
      .set('Authorization', bob.auth)
      .type('form')
      .send({ content: '' });
    expect(empty.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Message must not be empty' });
  });
});
