import type { Stream } from '../../../generated/prisma/client';
import { FEATURE_LEVEL } from '../../../libs/domain/version';
import { eventKeys } from '../../../libs/events/keys';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { NEWER_CHANNEL_FIELDS, NEWER_GROUP_FIELDS, openApiErrors } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;
let admin: TestUser;
let mutedTyper: TestUser;
let publicChannel: Stream;
let privateChannel: Stream;
let webPublic: Stream;

beforeAll(async () => {
  org = await organization({
    events: true,
    members: {
      alice: 'member',
      bob: 'member',
      guest: 'guest',
      admin: 'administrator',
      mutedTyper: { fullName: 'No Typing' },
    },
    channels: {
      public: ['alice', 'bob', 'guest', 'mutedTyper'],
      private: { subscribers: ['bob'], inviteOnly: true },
      web: [],
    },
  });
  ({ t } = org);
  ({ alice, bob, guest, admin, mutedTyper } = org.users);
  publicChannel = org.channels.public;
  privateChannel = org.channels.private;
  webPublic = org.channels.web;
  await t.db.user.update({
    where: { id: mutedTyper.user.id },
    data: { receivesTypingNotifications: false },
  });
  webPublic = await t.db.stream.update({
    where: { id: webPublic.id },
    data: { isWebPublic: true },
  });
});
afterAll(() => org.close());

/** Fields of the snapshot that are newer than the FL 247 description (spec wins). */
const NEWER_TOP = [
  'zulip_merge_base',
  'realm_url',
  'presence_last_update_id',
  'realm_users',
  'realm_non_active_users',
  'user_settings',
];

/** The snapshot with fields newer than FL 247 removed from nested entries, for the schema check. */
function asOfFl247(body: Record<string, unknown>): Record<string, unknown> {
  const strip = (list: unknown, fields: string[]) =>
    (list as Record<string, unknown>[]).map((entry) => {
      const copy = { ...entry };
      for (const f of fields) delete copy[f];
      return copy;
    });
  return {
    ...body,
    subscriptions: strip(body.subscriptions, NEWER_CHANNEL_FIELDS),
    unsubscribed: strip(body.unsubscribed, NEWER_CHANNEL_FIELDS),
    never_subscribed: strip(body.never_subscribed, NEWER_CHANNEL_FIELDS),
    streams: strip(body.streams, NEWER_CHANNEL_FIELDS),
    realm_user_groups: strip(body.realm_user_groups, NEWER_GROUP_FIELDS),
  };
}
const realmNewer = (body: Record<string, unknown>) =>
  Object.keys(body).filter((k) => k.startsWith('realm_') && !KNOWN_REALM.has(k));
const KNOWN_REALM = new Set(['realm_name', 'realm_description', 'realm_uri', 'realm_date_created']);

describe('POST /register', () => {
  it('creates a queue and returns the whole initial state', async () => {
    const res = await org
      .as(alice)
      .post('/register', { apply_markdown: 'true', include_subscribers: 'true' });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, unknown>;
    expect(body).toMatchObject({
      result: 'success',
      last_event_id: -1,
      zulip_feature_level: FEATURE_LEVEL,
      max_message_length: 10000,
      max_topic_length: 60,
      max_stream_name_length: 60,
      max_stream_description_length: 1024,
      user_id: alice.user.id,
      email: alice.email,
      full_name: 'Alice',
      is_admin: false,
      max_message_id: -1,
      realm_name: org.realm.name,
      alert_words: [],
      muted_users: [],
      drafts: [],
      scheduled_messages: [],
      recent_private_conversations: [],
    });
    expect(typeof body.queue_id).toBe('string');
    expect(body.event_queue_longpoll_timeout_seconds).toBeGreaterThan(t.config.heartbeatSeconds);
    const exists = await t.redis.exists(
      eventKeys(t.config.redisPrefix).queue(String(body.queue_id)),
    );
    expect(exists).toBe(1);
    const subs = body.subscriptions as { name: string; subscribers: number[] }[];
    expect(subs.map((s) => s.name)).toEqual(['general', 'public']);
    expect(subs[1].subscribers).toEqual(
      [alice, bob, guest, mutedTyper].map((u) => u.user.id).sort((a, b) => a - b),
    );
    const never = (body.never_subscribed as { name: string }[]).map((s) => s.name);
    expect(never).toContain('web');
    expect(never).not.toContain('private');
    const users = body.realm_users as { user_id: number }[];
    expect(users.map((u) => u.user_id)).toEqual(
      expect.arrayContaining([alice.user.id, bob.user.id]),
    );
    expect(Array.isArray(body.realm_user_groups)).toBe(true);
    // Legacy clients (no user_settings_object) also get settings at the top level.
    expect(body.twenty_four_hour_time).toBe(false);
    expect((body.user_settings as Record<string, unknown>).twenty_four_hour_time).toBe(false);
    const errors = openApiErrors('/register', 'post', asOfFl247(body), {
      newerFields: [...NEWER_TOP, ...realmNewer(body)],
    });
    expect(errors).toEqual([]);
  });

  it('returns only what fetch_event_types asks for', async () => {
    const body = await org.register(alice, {
      fetch_event_types: JSON.stringify(['alert_words', 'message']),
      client_capabilities: JSON.stringify({ user_settings_object: true }),
    });
    expect(body.alert_words).toEqual([]);
    expect(body.max_message_id).toBe(-1);
    // As in Zulip, unread_msgs needs update_message_flags too, the events that keep it current.
    expect(body).not.toHaveProperty('unread_msgs');
    expect(body).not.toHaveProperty('realm_users');
    expect(body).not.toHaveProperty('subscriptions');
    expect(body).not.toHaveProperty('twenty_four_hour_time');
  });

  it('reports unread messages, mentions and recent direct conversations', async () => {
    const dm = await postDirect(t, org.realm, bob.user, [alice.user], 'hi @**Alice**');
    const inChannel = await postToChannel(t, org.realm, bob.user, publicChannel, 'news', 'hey');
    const body = await org.register(alice, {
      fetch_event_types: JSON.stringify([
        'message',
        'update_message_flags',
        'recent_private_conversations',
      ]),
    });
    const unread = body.unread_msgs as Record<string, unknown>;
    expect(unread.count).toBe(2);
    expect(unread.pms).toEqual([
      { other_user_id: bob.user.id, sender_id: bob.user.id, unread_message_ids: [dm] },
    ]);
    expect(unread.streams).toEqual([
      { stream_id: publicChannel.id, topic: 'news', unread_message_ids: [inChannel] },
    ]);
    expect(unread.mentions).toEqual([dm]);
    expect(unread.old_unreads_missing).toBe(false);
    expect(body.max_message_id).toBe(inChannel);
    expect(body.recent_private_conversations).toEqual([
      { max_message_id: dm, user_ids: [bob.user.id] },
    ]);
  });

  it('shows administrators private channels in `streams`, members only accessible ones', async () => {
    const forAdmin = await org.register(admin, {
      fetch_event_types: JSON.stringify(['stream']),
    });
    const forMember = await org.register(alice, {
      fetch_event_types: JSON.stringify(['stream']),
    });
    const forGuest = await org.register(guest, {
      fetch_event_types: JSON.stringify(['stream']),
    });
    const names = (b: Record<string, unknown>) =>
      (b.streams as { name: string }[]).map((s) => s.name).sort();
    expect(names(forAdmin)).toEqual(expect.arrayContaining(['private', 'public', 'web']));
    expect(names(forMember)).not.toContain('private');
    expect(names(forGuest)).toEqual(['general', 'public', 'web']);
  });

  it("narrows a queue to the user's default events-register channel", async () => {
    const bot = await makeUser(t, org.realm, { fullName: 'Narrowed' });
    const other = await makeChannel(t, org.realm, { subscribers: [bot.user, alice.user] });
    await t.db.subscription.create({
      data: { userId: bot.user.id, recipientId: publicChannel.recipientId!, color: '#c2c2c2' },
    });
    await t.db.user.update({
      where: { id: bot.user.id },
      data: { defaultEventsRegisterStreamId: publicChannel.id },
    });
    const q = await org.register(bot, { event_types: JSON.stringify(['message']) });
    await postToChannel(t, org.realm, alice.user, other, 'elsewhere', 'skip me');
    const wanted = await postToChannel(t, org.realm, alice.user, publicChannel, 'here', 'take me');
    const got = await org.eventsUntil(bot, q.queue_id);
    expect(got.map((e) => (e.message as { id: number }).id)).toEqual([wanted]);
  });

  it('sends group settings held by anonymous groups as {direct_members, direct_subgroups}', async () => {
    const admins = await t.db.userGroup.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'role:administrators' },
    });
    const res = await org.as(org.owner).patch('/realm', {
      direct_message_initiator_group: JSON.stringify({
        new: { direct_members: [alice.user.id], direct_subgroups: [admins.id] },
      }),
    });
    expect(res.body).toMatchObject({ result: 'success' });
    const state = await org.register(bob, {
      fetch_event_types: JSON.stringify(['realm']),
    });
    expect(state.realm_direct_message_initiator_group).toEqual({
      direct_members: [alice.user.id],
      direct_subgroups: [admins.id],
    });
    expect(typeof state.realm_can_create_groups).toBe('number');
  });

  it('refuses all_public_streams for guests', async () => {
    const res = await org.as(guest).post('/register', { all_public_streams: 'true' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'User not authorized for this query',
      code: 'BAD_REQUEST',
    });
  });

  it('rejects malformed parameters', async () => {
    const res = await org.as(alice).post('/register', { event_types: 'not json' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Argument "event_types" is not valid JSON.',
    });
    const narrow = await org.as(alice).post('/register', { narrow: JSON.stringify('x') });
    expect(narrow.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'narrow is not a list' });
  });

  it('needs authentication', async () => {
    const res = await org.as(null).post('/register');
    expect(res.status).toBe(401);
  });
});

describe('POST /typing', () => {
  const typing = (auth: string, form: Record<string, string>) =>
    org.as({ auth: auth }).post('/typing', form);

  it('sends direct typing events to participants who receive them', async () => {
    const bobQueue = await org.register(bob);
    const mutedQueue = await org.register(mutedTyper);
    const res = await typing(alice.auth, {
      op: 'start',
      type: 'direct',
      to: JSON.stringify([bob.user.id, mutedTyper.user.id]),
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const got = await org.eventsUntil(bob, bobQueue.queue_id);
    expect(got).toEqual([
      {
        type: 'typing',
        id: 0,
        op: 'start',
        message_type: 'direct',
        sender: { user_id: alice.user.id, email: alice.email },
        recipients: [alice, bob, mutedTyper]
          .map((u) => ({ user_id: u.user.id, email: u.email }))
          .sort((a, b) => a.user_id - b.user_id),
      },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const muted = await org.eventsUntil(mutedTyper, mutedQueue.queue_id, () => true);
    expect(muted).toEqual([]);
  });

  it('sends channel typing events only to queues with stream_typing_notifications', async () => {
    const capable = await org.register(bob, {
      client_capabilities: JSON.stringify({ stream_typing_notifications: true }),
    });
    const old = await org.register(bob);
    const res = await typing(alice.auth, {
      op: 'stop',
      type: 'stream',
      stream_id: String(publicChannel.id),
      topic: 'news',
    });
    expect(res.status).toBe(200);
    const got = await org.eventsUntil(bob, capable.queue_id);
    expect(got[0]).toMatchObject({
      type: 'typing',
      op: 'stop',
      message_type: 'stream',
      stream_id: publicChannel.id,
      topic: 'news',
    });
    const none = await org.eventsUntil(bob, old.queue_id, () => true);
    expect(none).toEqual([]);
  });

  it('validates its parameters', async () => {
    expect((await typing(alice.auth, { op: 'start' })).body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'to',
    });
    expect((await typing(alice.auth, { op: 'start', to: '[]' })).body.msg).toBe("Empty 'to' list");
    expect((await typing(alice.auth, { op: 'go', to: `[${bob.user.id}]` })).body.msg).toBe(
      'Invalid op',
    );
    expect((await typing(alice.auth, { op: 'start', to: '[999999]' })).body.msg).toBe(
      'Invalid user ID 999999',
    );
    expect(
      (await typing(alice.auth, { op: 'start', type: 'stream', topic: 'x' })).body,
    ).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'stream_id' });
    expect(
      (
        await typing(alice.auth, {
          op: 'start',
          type: 'stream',
          stream_id: String(publicChannel.id),
        })
      ).body.msg,
    ).toBe('Missing topic');
  });

  it('refuses channels the sender cannot access', async () => {
    const res = await typing(alice.auth, {
      op: 'start',
      type: 'stream',
      stream_id: String(privateChannel.id),
      topic: 'x',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
    const guestRes = await typing(guest.auth, {
      op: 'start',
      type: 'stream',
      stream_id: String(webPublic.id),
      topic: 'x',
    });
    expect(guestRes.status).toBe(200);
  });
});
