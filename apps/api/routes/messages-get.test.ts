import type { Stream } from '../../../generated/prisma/client';
import { getMessages } from '../../../libs/domain/messages/get-messages';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel, addSubscribers } from '../../../test/channel-factories';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let design: Stream;
let secret: Stream;
const ids: Record<string, number> = {};

beforeAll(async () => {
  org = await organization({
    members: {
      alice: { fullName: 'Alice Member' },
      bob: { fullName: 'Bob Member' },
      carol: { fullName: 'Carol Late' },
      guest: 'guest',
    },
    channels: {
      design: ['alice', 'bob'],
      secret: { subscribers: ['alice'], inviteOnly: true, historyPublicToSubscribers: false },
    },
  });
  ({ t } = org);
  ({ alice, bob, carol, guest } = org.users);
  ({ design, secret } = org.channels);
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
  await addSubscribers(t, secret, [carol.user]);
  ids.secretNew = await postToChannel(t, r, alice.user, secret, 'x', 'after carol');
  ids.resolved = await postToChannel(t, r, bob.user, design, '✔ done', 'fixed');
});
afterAll(() => org.close());

const get = (who: TestUser, query: Record<string, string | number | boolean>) =>
  org.as(who).get('/messages', query);

const fetchIds = async (
  who: TestUser,
  narrow: unknown[],
  extra: Record<string, string | number> = {},
) => {
  const res = await get(who, {
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
    const res = await get(bob, {
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
    const res = await get(bob, {
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
    expect(await fetchIds(bob, topic)).toEqual([ids.first, ids.mention]);
    expect(await fetchIds(bob, [{ operator: 'sender', operand: bob.user.id }])).toEqual([
      ids.other,
      ids.resolved,
    ]);
    expect(await fetchIds(bob, [['pm-with', alice.email]])).toEqual([ids.dm]);
    expect(await fetchIds(bob, [{ operator: 'dm', operand: [alice.user.id] }])).toEqual([ids.dm]);
    expect(await fetchIds(bob, [{ operator: 'dm-including', operand: alice.user.id }])).toEqual([
      ids.dm,
    ]);
    expect(await fetchIds(bob, [{ operator: 'is', operand: 'dm' }])).toEqual([ids.dm]);
    expect(await fetchIds(bob, [{ operator: 'is', operand: 'mentioned' }])).toEqual([ids.mention]);
    expect(await fetchIds(bob, [{ operator: 'is', operand: 'resolved' }])).toEqual([ids.resolved]);
    expect(await fetchIds(bob, [{ operator: 'has', operand: 'link' }])).toEqual([ids.first]);
    expect(await fetchIds(bob, [{ operator: 'id', operand: ids.other }])).toEqual([ids.other]);
    expect(
      await fetchIds(bob, [
        { operator: 'is', operand: 'dm', negated: true },
        { operator: 'topic', operand: 'plans', negated: true },
      ]),
    ).toEqual([ids.other, ids.resolved]);
    expect(
      await fetchIds(bob, [
        { operator: 'near', operand: ids.first },
        { operator: 'is', operand: 'starred' },
      ]),
    ).toEqual([]);
  });

  it('searches with full-text search and highlights matches', async () => {
    const res = await get(bob, {
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
    const res = await get(carol, {
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
    expect(await fetchIds(carol, [])).toEqual([ids.secretNew]);
    expect(await fetchIds(carol, [{ operator: 'channels', operand: 'public' }])).toEqual([
      ids.first,
      ids.mention,
      ids.other,
      ids.resolved,
    ]);
  });

  it('hides protected private-channel history from later subscribers and guests see no public history', async () => {
    expect(await fetchIds(carol, [{ operator: 'channel', operand: 'secret' }])).toEqual([
      ids.secretNew,
    ]);
    expect(await fetchIds(alice, [{ operator: 'channel', operand: 'secret' }])).toEqual([
      ids.secretOld,
      ids.secretNew,
    ]);
    expect(await fetchIds(guest, [{ operator: 'channel', operand: 'design' }])).toEqual([]);
  });

  it('handles anchors, include_anchor and windows', async () => {
    const res = await get(bob, {
      anchor: ids.mention,
      num_before: 1,
      include_anchor: 'false',
    });
    // num_after defaults to 0 since FL 300.
    expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.first]);
    expect(res.body).toMatchObject({
      anchor: ids.mention,
      found_anchor: false,
      found_oldest: true,
      found_newest: false,
    });
    const after = await get(bob, {
      anchor: ids.mention,
      num_before: 0,
      num_after: 1,
      include_anchor: 'false',
    });
    expect(after.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.other]);
    const unread = await get(bob, { anchor: 'first_unread', num_before: 0, num_after: 1 });
    expect(unread.body.anchor).toBe(ids.first);
    expect(unread.body.found_anchor).toBe(true);
  });

  it.each([
    [
      { anchor: 5, num_before: 1, num_after: 1, include_anchor: 'false' },
      'BAD_REQUEST',
      'The anchor can only be excluded at an end of the range',
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
    const res = await get(bob, query as Record<string, string | number>);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: 'error', code, msg });
  });
});

describe('GET /messages message_ids (FL 300)', () => {
  it('returns the listed messages the user can access, in ID order, without anchor', async () => {
    const res = await get(bob, {
      message_ids: JSON.stringify([ids.dm, ids.secretOld, 99999999, ids.first]),
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages', 'get', stripNewer(res.body));
    expect(res.body).toMatchObject({
      result: 'success',
      found_anchor: false,
      found_oldest: false,
      found_newest: false,
      history_limited: false,
    });
    expect(res.body).not.toHaveProperty('anchor');
    expect(res.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.first, ids.dm]);
  });

  it('applies the narrow and reads channel history as a window does', async () => {
    const listed = JSON.stringify([ids.first, ids.other, ids.dm]);
    const topic = await get(bob, {
      message_ids: listed,
      narrow: JSON.stringify([{ operator: 'topic', operand: 'plans' }]),
    });
    expect(topic.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.first]);
    // Carol received none of these: only a channel narrow reaches their history.
    const plain = await get(carol, { message_ids: listed });
    expect(plain.body.messages).toEqual([]);
    const history = await get(carol, {
      message_ids: listed,
      narrow: JSON.stringify([{ operator: 'channel', operand: design.id }]),
    });
    expect(history.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.first, ids.other]);
    expect(history.body.messages[0].flags).toEqual(['read', 'historical']);
    const none = await get(bob, { message_ids: '[]' });
    expect(none.body).toMatchObject({ result: 'success', messages: [] });
  });

  it.each([
    [{ anchor: 'newest' }],
    [{ num_before: 1 }],
    [{ num_after: 2 }],
    [{ use_first_unread_anchor: 'true' }],
  ])('refuses message_ids with %j', async (extra) => {
    const res = await get(bob, { message_ids: '[1]', ...extra });
    expect(res.status).toBe(400);
    const parameters =
      'num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor';
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: `Unsupported parameter combination: ${parameters}`,
      parameters,
    });
  });

  it('accepts num_before=0 and num_after=0 beside message_ids and limits the count', async () => {
    const ok = await get(bob, { message_ids: `[${ids.first}]`, num_before: 0, num_after: 0 });
    expect(ok.body.messages.map((m: { id: number }) => m.id)).toEqual([ids.first]);
    // 5001 IDs do not fit in a request line, so the limit is checked on the domain action.
    const many = Array.from({ length: 5001 }, (_, i) => i + 1);
    await expect(
      getMessages(t.db, {
        user: bob.user,
        realm: org.realm,
        messageIds: many,
        narrow: [],
        applyMarkdown: true,
        clientGravatar: true,
        allowEmptyTopicName: false,
      }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Too many messages requested (maximum 5000).',
    });
  });
});

describe('the with narrow operator (FL 271)', () => {
  let moved: number;
  let stays: number;
  let already: number;
  let other: Stream;

  beforeAll(async () => {
    other = await makeChannel(t, org.realm, { name: 'ops', subscribers: [alice.user, bob.user] });
    moved = await postToChannel(t, org.realm, alice.user, other, 'old topic', 'to be moved');
    stays = await postToChannel(t, org.realm, alice.user, other, 'old topic', 'stays behind');
    already = await postToChannel(t, org.realm, alice.user, other, 'new topic', 'already there');
    const res = await org
      .as(alice)
      .patch(`/messages/${moved}`, { topic: 'new topic', propagate_mode: 'change_one' });
    expect(res.status).toBe(200);
  });

  const fetchWith = async (who: TestUser, narrow: unknown[]) => {
    const res = await get(who, {
      anchor: 'newest',
      num_before: 100,
      narrow: JSON.stringify(narrow),
    });
    expect(res.status).toBe(200);
    return res.body.messages as { id: number; subject: string; stream_id: number }[];
  };

  it("narrows to the message's conversation where it is now, replacing stale terms", async () => {
    const stale = [
      { operator: 'channel', operand: other.id },
      { operator: 'topic', operand: 'old topic' },
      { operator: 'with', operand: moved },
    ];
    const now = await fetchWith(bob, stale);
    expect(now.map((m) => m.id)).toContain(moved);
    expect(now.map((m) => m.id)).not.toContain(stays);
    expect(new Set(now.map((m) => `${m.stream_id}/${m.subject}`))).toEqual(
      new Set([`${other.id}/new topic`]),
    );
    // Other terms stay (here: leave out the notification bot's move notice).
    const ids2 = await fetchIds(bob, [...stale, { operator: 'sender', operand: alice.user.id }]);
    expect(ids2).toEqual([moved, already]);
    // A string operand works too, alone.
    const old = await fetchWith(bob, [{ operator: 'with', operand: String(stays) }]);
    expect(old.map((m) => m.id)).toEqual([stays]);
  });

  it('narrows to the direct-message conversation of a DM', async () => {
    expect(
      await fetchIds(bob, [
        { operator: 'channel', operand: design.id },
        { operator: 'with', operand: ids.dm },
      ]),
    ).toEqual([ids.dm]);
  });

  it('falls back to the rest of the narrow for an inaccessible message when it names a conversation', async () => {
    // Carol cannot access the DM; the narrow still names a conversation, which is used as is.
    const narrow = [
      { operator: 'channel', operand: design.id },
      { operator: 'topic', operand: 'plans' },
      { operator: 'with', operand: ids.dm },
    ];
    expect(await fetchIds(carol, narrow)).toEqual([ids.first, ids.mention]);
    expect(
      await fetchIds(carol, [
        { operator: 'dm', operand: [alice.user.id] },
        { operator: 'with', operand: 99999999 },
      ]),
    ).toEqual([]);
  });

  it.each([
    [[{ operator: 'with', operand: 99999999 }], "Invalid narrow operator: Invalid 'with' operator"],
    [
      [
        { operator: 'channel', operand: 'design' },
        { operator: 'with', operand: 99999999 },
      ],
      "Invalid narrow operator: Invalid 'with' operator",
    ],
    [[{ operator: 'with', operand: 'abc' }], "Invalid narrow operator: Invalid 'with' operator"],
    [
      [
        { operator: 'with', operand: 1 },
        { operator: 'with', operand: 2 },
      ],
      "Invalid narrow operator combination: Duplicate 'with' operators.",
    ],
  ])('refuses %j', async (narrow, msg) => {
    const res = await get(bob, {
      anchor: 'newest',
      num_before: 1,
      narrow: JSON.stringify(narrow),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: 'error', code: 'BAD_NARROW', msg });
  });

  it('refuses a message the user cannot access without a conversation to fall back to', async () => {
    const res = await get(carol, {
      anchor: 'newest',
      num_before: 1,
      narrow: JSON.stringify([{ operator: 'with', operand: ids.secretOld }]),
    });
    expect(res.body).toMatchObject({
      code: 'BAD_NARROW',
      msg: "Invalid narrow operator: Invalid 'with' operator",
      desc: "Invalid 'with' operator",
    });
  });

  it('is not a matches_narrow operator, as in Zulip', async () => {
    const res = await org.as(bob).get('/messages/matches_narrow', {
      msg_ids: JSON.stringify([ids.first]),
      narrow: JSON.stringify([{ operator: 'with', operand: ids.first }]),
    });
    expect(res.body).toMatchObject({
      code: 'BAD_NARROW',
      msg: 'Invalid narrow operator: unknown operator with',
    });
  });
});

describe('GET /messages/{id}', () => {
  it('returns the message with flags and raw_content', async () => {
    const res = await org.as(bob).get(`/messages/${ids.mention}`);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/{message_id}', 'get', res.body);
    expect(res.body.raw_content).toBe('@**Bob Member** deploy the database');
    expect(res.body.message).toMatchObject({ id: ids.mention, flags: ['mentioned'] });
  });

  it('refuses messages the user cannot access', async () => {
    for (const [who, id] of [
      [carol, ids.secretOld],
      [carol, ids.dm],
      [bob, 99999999],
    ] as const) {
      const res = await org.as(who).get(`/messages/${id}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' });
    }
  });
});

describe('GET /messages/matches_narrow and POST /messages/render', () => {
  it('reports which messages match', async () => {
    const res = await org.as(bob).get('/messages/matches_narrow', {
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
    const res = await org.as(bob).post('/messages/render', { content: '**bold**' });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/render', 'post', res.body);
    expect(res.body.rendered).toBe('<p><strong>bold</strong></p>');
    expect(await t.db.message.count()).toBe(before);
    const empty = await org.as(bob).post('/messages/render', { content: '' });
    expect(empty.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Message must not be empty' });
  });
});
