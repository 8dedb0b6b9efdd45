import {
  makeChannel,
  NEWER_CHANNEL_FIELDS,
  withoutNestedFields,
} from '../../../test/channel-factories';
import { makeBot, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let member: TestUser;
let guest: TestUser;
let admin: TestUser;

beforeAll(async () => {
  org = await organization({
    members: { member: 'member', guest: 'guest', admin: 'administrator' },
  });
  ({ t } = org);
  ({ member, guest, admin } = org.users);
});
afterAll(() => org.close());

/** Events written to the outbox since `sinceId`. */
async function eventsSince(sinceId: bigint) {
  const rows = await t.db.outboxEvent.findMany({
    where: { id: { gt: sinceId } },
    orderBy: { id: 'asc' },
  });
  return rows.map((r) => ({
    event: r.eventJson as Record<string, unknown>,
    users: r.usersJson as number[],
  }));
}
const lastOutboxId = async () =>
  (await t.db.outboxEvent.findFirst({ orderBy: { id: 'desc' } }))?.id ?? BigInt(0);

/** Direct messages the notification bot sent to `userId`, oldest first. */
const noticesTo = (userId: number) =>
  t.db.message.findMany({
    where: {
      isChannelMessage: false,
      sender: { fullName: 'Notification Bot', isBot: true },
      userMessages: { some: { userId } },
    },
    orderBy: { id: 'asc' },
  });

describe('POST /users/me/subscriptions', () => {
  it('creates a channel, subscribes the caller and emits events', async () => {
    const since = await lastOutboxId();
    const res = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'design', description: 'All **design** talk' }]),
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users/me/subscriptions', 'post', res.body);
    expect(res.body.subscribed).toEqual({ [String(member.user.id)]: ['design'] });
    expect(res.body.already_subscribed).toEqual({});
    expect(res.body).not.toHaveProperty('unauthorized');
    const stream = await t.db.stream.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'design' },
    });
    expect(stream.creatorId).toBe(member.user.id);
    expect(stream.renderedDescription).toBe('<p>All <strong>design</strong> talk</p>');
    const events = await eventsSince(since);
    const create = events.find((e) => e.event.type === 'stream' && e.event.op === 'create');
    expect(create?.users).toEqual(expect.arrayContaining([member.user.id, admin.user.id]));
    expect(create?.users).not.toContain(guest.user.id);
    const add = events.find((e) => e.event.type === 'subscription' && e.event.op === 'add');
    expect(add?.users).toEqual([member.user.id]);
    const subs = add?.event.subscriptions as { name: string; subscribers: number[] }[];
    expect(subs[0]).toMatchObject({ name: 'design', subscribers: [member.user.id] });
  });

  it('reports channels the user was already subscribed to', async () => {
    const res = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'design' }]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscribed: {},
      already_subscribed: { [String(member.user.id)]: ['design'] },
    });
  });

  it('subscribes principals given as IDs or emails and tells the peers', async () => {
    const other = await makeUser(t, org.realm);
    const third = await makeUser(t, org.realm);
    const since = await lastOutboxId();
    const res = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'design' }]),
      principals: JSON.stringify([other.user.id]),
    });
    expect(res.status).toBe(200);
    expect(res.body.subscribed).toEqual({ [String(other.user.id)]: ['design'] });
    const peer = (await eventsSince(since)).find((e) => e.event.op === 'peer_add');
    expect(peer?.event).toMatchObject({ user_ids: [other.user.id] });
    expect(peer?.users).toContain(member.user.id);
    expect(peer?.users).not.toContain(other.user.id);

    const byEmail = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'design' }]),
      principals: JSON.stringify([third.email]),
    });
    expect(byEmail.body.subscribed).toEqual({ [String(third.user.id)]: ['design'] });
  });

  it('tells each human subscribed by someone else, by a direct message from the notification bot', async () => {
    const actor = await makeUser(t, org.realm, { fullName: 'Sub Scriber' });
    const target = await makeUser(t, org.realm);
    const bot = await makeBot(t, org.realm, actor.user);
    await makeChannel(t, org.realm, { name: 'dm-existing', subscribers: [actor.user] });
    const since = await lastOutboxId();
    const res = await org.as(actor).post('/users/me/subscriptions', {
      // The second channel is created by this request: Zulip tells nobody about those.
      subscriptions: JSON.stringify([{ name: 'dm-existing' }, { name: 'dm-created' }]),
      principals: JSON.stringify([actor.user.id, target.user.id, bot.user.id]),
    });
    expect(res.status).toBe(200);
    expect(res.body.subscribed[String(target.user.id)]).toEqual(['dm-existing', 'dm-created']);

    const [dm] = await noticesTo(target.user.id);
    expect(dm.content).toBe(
      `@**Sub Scriber|${actor.user.id}** subscribed you to the channel #**dm-existing**.`,
    );
    expect(await noticesTo(actor.user.id)).toEqual([]);
    expect(await noticesTo(bot.user.id)).toEqual([]);
    // Delivered like any direct message: a `message` event to the recipient, unread.
    const event = (await eventsSince(since)).find(
      (e) => e.event.type === 'message' && e.users.includes(target.user.id),
    );
    expect(event?.event).toMatchObject({
      message: { id: dm.id, type: 'private', sender_full_name: 'Notification Bot' },
      flags: [],
    });
  });

  it('lists several channels in one direct message, sorted by name', async () => {
    const target = await makeUser(t, org.realm);
    await makeChannel(t, org.realm, { name: 'zz-later', subscribers: [member.user] });
    await makeChannel(t, org.realm, { name: 'aa-first', subscribers: [member.user] });
    const res = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'zz-later' }, { name: 'aa-first' }]),
      principals: JSON.stringify([target.user.id]),
    });
    expect(res.status).toBe(200);
    const dms = await noticesTo(target.user.id);
    // Stored as sent, less the trailing newline every message body loses.
    expect(dms.map((m) => m.content)).toEqual([
      `@**${member.user.fullName}|${member.user.id}** subscribed you to the following channels:` +
        '\n\n* #**aa-first**\n* #**zz-later**',
    ]);
    // Nothing new when nothing changes; unsubscribing someone sends no message either.
    await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'aa-first' }]),
      principals: JSON.stringify([target.user.id]),
    });
    const removed = await org.as(org.owner).delete('/users/me/subscriptions', {
      subscriptions: JSON.stringify(['aa-first']),
      principals: JSON.stringify([target.user.id]),
    });
    expect(removed.body.removed).toEqual(['aa-first']);
    expect(await noticesTo(target.user.id)).toHaveLength(1);
  });

  it('refuses a principal that does not exist, changing nothing', async () => {
    const res = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'never-made' }]),
      principals: JSON.stringify([999999]),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'No such user' });
    expect(await t.db.stream.findFirst({ where: { name: 'never-made' } })).toBeNull();
  });

  it('validates channel names', async () => {
    const empty = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: '   ' }]),
    });
    expect(empty.body).toMatchObject({ code: 'BAD_REQUEST', msg: "Channel name can't be empty." });
    const long = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'x'.repeat(61) }]),
    });
    expect(long.body.msg).toBe('Channel name too long (limit: 60 characters).');
    const missing = await org.as(member).post('/users/me/subscriptions', {});
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING' });
  });

  // Zulip's add_subscriptions_backend is require_non_guest_user.
  it('does not let guests create or join channels', async () => {
    const create = await org.as(guest).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'guest-made' }]),
    });
    expect(create.status).toBe(400);
    expect(create.body.msg).toBe('Not allowed for guest users');
    const join = await org.as(guest).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'design' }]),
    });
    expect(join.status).toBe(400);
    expect(join.body.msg).toBe('Not allowed for guest users');
  });

  it('lists private channels in unauthorized when errors are not fatal', async () => {
    await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      name: 'secret',
      inviteOnly: true,
    });
    const fatal = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'secret' }]),
    });
    expect(fatal.status).toBe(400);
    expect(fatal.body.msg).toBe('Unable to access channel (secret).');
    const soft = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'secret' }, { name: 'design' }]),
      authorization_errors_fatal: 'false',
    });
    expect(soft.status).toBe(200);
    expectOpenApiResponse('/users/me/subscriptions', 'post', soft.body);
    expect(soft.body.unauthorized).toEqual(['secret']);
    expect(soft.body.already_subscribed).toEqual({ [String(member.user.id)]: ['design'] });
  });

  it('creates private channels with the creation parameters', async () => {
    const res = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'admins-only' }]),
      invite_only: 'true',
      history_public_to_subscribers: 'true',
      can_send_message_group: JSON.stringify({
        direct_members: [admin.user.id],
        direct_subgroups: [],
      }),
    });
    expect(res.status).toBe(200);
    const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'admins-only' } });
    expect(stream).toMatchObject({ inviteOnly: true, historyPublicToSubscribers: true });
    const group = await t.db.userGroup.findUniqueOrThrow({
      where: { id: stream.canSendMessageGroupId },
      include: { members: true },
    });
    expect(group.named).toBe(false);
    expect(group.members.map((m) => m.userId)).toEqual([admin.user.id]);
  });

  it('refuses role:internet as a channel permission', async () => {
    const internet = await t.db.userGroup.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'role:internet' },
    });
    const res = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'internet-chan' }]),
      can_send_message_group: String(internet.id),
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe(
      "'can_send_message_group' setting cannot be set to 'role:internet' group.",
    );
  });

  it('needs the server and organization settings for web-public channels', async () => {
    const res = await org.as(org.owner).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'web' }]),
      is_web_public: 'true',
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Web-public channels are not enabled.');
  });

  it('lets only owners set message retention on creation', async () => {
    const res = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'retained' }]),
      message_retention_days: '30',
    });
    expect(res.body.msg).toBe('Must be an organization owner');
    const ok = await org.as(org.owner).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'retained' }]),
      message_retention_days: 'unlimited',
    });
    expect(ok.status).toBe(200);
    const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'retained' } });
    expect(stream.messageRetentionDays).toBe(-1);
  });

  it('announces new channels from the notification bot as normal messages', async () => {
    const general = await t.db.stream.findFirstOrThrow({
      where: { id: org.realm.newStreamAnnouncementsStreamId! },
    });
    const since = await lastOutboxId();
    const res = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'announced', description: 'Big **news**' }]),
      announce: 'true',
    });
    expect(res.status).toBe(200);
    const announced = await t.db.stream.findFirstOrThrow({ where: { name: 'announced' } });
    const announcement = await t.db.message.findFirstOrThrow({
      where: { recipientId: general.recipientId!, subject: 'new channels' },
      include: { sender: true },
    });
    expect(announcement.sender.fullName).toBe('Notification Bot');
    expect(announcement.content).toBe(
      `@_**${member.user.fullName}|${member.user.id}** created a new channel #**announced**.`,
    );
    expect(announcement.renderedContent).toContain(`data-stream-id="${announced.id}"`);
    const notice = await t.db.message.findFirstOrThrow({
      where: { recipientId: announced.recipientId!, subject: 'channel events' },
      include: { sender: true },
    });
    expect(notice.sender.fullName).toBe('Notification Bot');
    expect(notice.content).toBe(
      `**Public** channel created by @_**${member.user.fullName}|${member.user.id}**. ` +
        '**Description:**\n```` quote\nBig **news**\n````',
    );

    // Both reach their channels' subscribers as `message` events; the creator's copies are read.
    const events = await eventsSince(since);
    const messageEvents = (id: number) =>
      events.filter(
        (e) => e.event.type === 'message' && (e.event.message as { id: number }).id === id,
      );
    // One event per message; a recipient whose flags differ from `flags` has its own entry.
    const flagsOf = (id: number, userId: number) => {
      const event = messageEvents(id).find((e) => e.users.includes(userId))?.event;
      const internal = event?.internal as { userFlags?: Record<string, string[]> } | undefined;
      const own = internal?.userFlags?.[userId];
      return own ?? event?.flags;
    };
    expect(flagsOf(announcement.id, member.user.id)).toEqual(['read']);
    expect(flagsOf(notice.id, member.user.id)).toEqual(['read']);
    expect(flagsOf(announcement.id, org.owner.user.id)).toEqual([]);
    const read = await t.db.userMessage.findFirstOrThrow({
      where: { userId: member.user.id, messageId: notice.id },
    });
    expect(Number(read.flags) & 1).toBe(1);
  });

  it('names every channel created at once in one announcement', async () => {
    const res = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'first-of-two' }, { name: 'second-of-two' }]),
      announce: 'true',
    });
    expect(res.status).toBe(200);
    const announcement = await t.db.message.findFirstOrThrow({
      where: { subject: 'new channels', content: { contains: 'first-of-two' } },
    });
    expect(announcement.content).toBe(
      `@_**${member.user.fullName}|${member.user.id}** created the following channels: ` +
        '#**first-of-two**, #**second-of-two**.',
    );
    for (const name of ['first-of-two', 'second-of-two']) {
      const stream = await t.db.stream.findFirstOrThrow({ where: { name } });
      expect(
        await t.db.message.count({
          where: { recipientId: stream.recipientId!, subject: 'channel events' },
        }),
      ).toBe(1);
    }
  });

  it('announces nothing without announce or without an announcements channel', async () => {
    const quiet = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'unannounced' }]),
    });
    expect(quiet.status).toBe(200);
    expect(
      await t.db.message.count({
        where: { subject: 'new channels', content: { contains: 'unannounced' } },
      }),
    ).toBe(0);

    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { newStreamAnnouncementsStreamId: null },
    });
    try {
      const res = await org.as(member).post('/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name: 'nowhere-to-announce' }]),
        announce: 'true',
      });
      expect(res.status).toBe(200);
      expect(
        await t.db.message.count({
          where: { subject: 'new channels', content: { contains: 'nowhere-to-announce' } },
        }),
      ).toBe(0);
      // The new channel's own notice does not depend on the announcements channel.
      const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'nowhere-to-announce' } });
      const notice = await t.db.message.findFirstOrThrow({
        where: { recipientId: stream.recipientId! },
      });
      expect(notice.subject).toBe('channel events');
      expect(notice.content).toContain('**Description:**\n```` quote\n*No description.*\n````');
    } finally {
      await t.db.realm.update({
        where: { id: org.realm.id },
        data: { newStreamAnnouncementsStreamId: org.realm.newStreamAnnouncementsStreamId },
      });
    }
  });

  it('posts the creation notice in a private channel nobody may post to', async () => {
    const nobody = await t.db.userGroup.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'role:nobody' },
    });
    const since = await lastOutboxId();
    const res = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'locked-room' }]),
      invite_only: 'true',
      principals: JSON.stringify([admin.user.id, member.user.id]),
      can_send_message_group: String(nobody.id),
    });
    expect(res.status).toBe(200);
    const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'locked-room' } });
    const notice = await t.db.message.findFirstOrThrow({
      where: { recipientId: stream.recipientId! },
    });
    expect(notice.content).toBe(
      `**Private, protected history** channel created by @_**${admin.user.fullName}|${admin.user.id}**. ` +
        '**Description:**\n```` quote\n*No description.*\n````',
    );
    const toMember = (await eventsSince(since)).find(
      (e) => e.event.type === 'message' && e.users.includes(member.user.id),
    );
    expect(toMember?.event.flags).toEqual([]);
    expect(toMember?.users).not.toContain(guest.user.id);
  });

  it('makes default channels on creation for administrators only', async () => {
    const denied = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'member-default' }]),
      is_default_stream: 'true',
    });
    expect(denied.body.msg).toBe('Insufficient permission');
    const ok = await org.as(admin).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'admin-default' }]),
      is_default_stream: 'true',
    });
    expect(ok.status).toBe(200);
    const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'admin-default' } });
    expect(await t.db.defaultStream.findUnique({ where: { streamId: stream.id } })).not.toBeNull();
  });
});

describe('GET /users/me/subscriptions', () => {
  it('lists the caller subscriptions, with subscribers on request', async () => {
    const res = await org.as(member).get('/users/me/subscriptions?include_subscribers=true');
    expect(res.status).toBe(200);
    expectOpenApiResponse(
      '/users/me/subscriptions',
      'get',
      withoutNestedFields(res.body, 'subscriptions', NEWER_CHANNEL_FIELDS),
    );
    const design = res.body.subscriptions.find((s: { name: string }) => s.name === 'design');
    expect(design).toMatchObject({
      is_muted: false,
      in_home_view: true,
      creator_id: member.user.id,
      is_archived: false,
      stream_weekly_traffic: null,
    });
    expect(design.subscribers).toContain(member.user.id);
    const plain = await org.as(member).get('/users/me/subscriptions');
    expect(plain.body.subscriptions[0]).not.toHaveProperty('subscribers');
  });
});

describe('POST /users/me/subscriptions/properties', () => {
  it('updates properties; is_muted emits two events', async () => {
    const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'design' } });
    const since = await lastOutboxId();
    const res = await org.as(member).post('/users/me/subscriptions/properties', {
      subscription_data: JSON.stringify([
        { stream_id: stream.id, property: 'is_muted', value: true },
        { stream_id: stream.id, property: 'color', value: '#abcdef' },
        { stream_id: stream.id, property: 'pin_to_top', value: true },
      ]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const sub = await t.db.subscription.findFirstOrThrow({
      where: { userId: member.user.id, recipientId: stream.recipientId! },
    });
    expect(sub).toMatchObject({ isMuted: true, color: '#abcdef', pinToTop: true });
    const updates = (await eventsSince(since)).map((e) => e.event);
    expect(updates.map((e) => [e.property, e.value])).toEqual([
      ['in_home_view', false],
      ['is_muted', true],
      ['color', '#abcdef'],
      ['pin_to_top', true],
    ]);

    const back = await org.as(member).post('/users/me/subscriptions/properties', {
      subscription_data: JSON.stringify([
        { stream_id: stream.id, property: 'in_home_view', value: true },
      ]),
    });
    expect(back.status).toBe(200);
    const after = await t.db.subscription.findFirstOrThrow({ where: { id: sub.id } });
    expect(after.isMuted).toBe(false);
  });

  it('rejects unknown properties, bad values and unsubscribed channels', async () => {
    const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'design' } });
    const unknown = await org.as(member).post('/users/me/subscriptions/properties', {
      subscription_data: JSON.stringify([{ stream_id: stream.id, property: 'bogus', value: 1 }]),
    });
    expect(unknown.status).toBe(400);
    const color = await org.as(member).post('/users/me/subscriptions/properties', {
      subscription_data: JSON.stringify([
        { stream_id: stream.id, property: 'color', value: 'red' },
      ]),
    });
    expect(color.status).toBe(400);
    const notSub = await org.as(guest).post('/users/me/subscriptions/properties', {
      subscription_data: JSON.stringify([
        { stream_id: stream.id, property: 'pin_to_top', value: true },
      ]),
    });
    expect(notSub.body.msg).toBe(`Not subscribed to channel ID ${stream.id}`);
  });
});

describe('GET /users/{user_id}/subscriptions/{stream_id}', () => {
  it('answers is_subscribed for channels the caller can see', async () => {
    const stream = await t.db.stream.findFirstOrThrow({ where: { name: 'design' } });
    const yes = await org.as(admin).get(`/users/${member.user.id}/subscriptions/${stream.id}`);
    expect(yes.status).toBe(200);
    expectOpenApiResponse('/users/{user_id}/subscriptions/{stream_id}', 'get', yes.body);
    expect(yes.body.is_subscribed).toBe(true);
    const no = await org.as(member).get(`/users/${admin.user.id}/subscriptions/${stream.id}`);
    expect(no.body.is_subscribed).toBe(false);
    const secret = await t.db.stream.findFirstOrThrow({ where: { name: 'secret' } });
    const hidden = await org
      .as(member)
      .get(`/users/${org.owner.user.id}/subscriptions/${secret.id}`);
    expect(hidden.status).toBe(400);
    expect(hidden.body.msg).toBe('Invalid channel ID');
  });
});

describe('DELETE /users/me/subscriptions', () => {
  it('unsubscribes the caller and reports what was not subscribed', async () => {
    await makeChannel(t, org.realm, { name: 'leaving', subscribers: [member.user] });
    const res = await org.as(member).delete('/users/me/subscriptions', {
      subscriptions: JSON.stringify(['leaving', 'retained']),
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users/me/subscriptions', 'delete', res.body);
    expect(res.body).toMatchObject({ removed: ['leaving'], not_removed: ['retained'] });
  });

  it('lets only can_remove_subscribers_group members unsubscribe others', async () => {
    const victim = await makeUser(t, org.realm);
    await makeChannel(t, org.realm, { name: 'kick', subscribers: [victim.user, member.user] });
    const denied = await org.as(member).delete('/users/me/subscriptions', {
      subscriptions: JSON.stringify(['kick']),
      principals: JSON.stringify([victim.user.id]),
    });
    expect(denied.status).toBe(400);
    expect(denied.body.msg).toBe('Insufficient permission');
    const ok = await org.as(admin).delete('/users/me/subscriptions', {
      subscriptions: JSON.stringify(['kick']),
      principals: JSON.stringify([victim.user.id]),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.removed).toEqual(['kick']);
  });

  it('refuses channels that do not exist', async () => {
    const res = await org
      .as(member)
      .delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['nope-nope']) });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Channel(s) (nope-nope) do not exist');
  });
});

describe('PATCH /users/me/subscriptions', () => {
  const patch = (who: TestUser, form: Record<string, string>) =>
    org.as(who).patch('/users/me/subscriptions', form);
  const isSubscribed = async (userId: number, name: string) => {
    const stream = await t.db.stream.findFirstOrThrow({ where: { realmId: org.realm.id, name } });
    const sub = await t.db.subscription.findUnique({
      where: { userId_recipientId: { userId, recipientId: stream.recipientId! } },
    });
    return sub?.active ?? false;
  };

  it('adds and deletes in one request and merges both answers', async () => {
    await makeChannel(t, org.realm, { name: 'patch-have', subscribers: [member.user] });
    await makeChannel(t, org.realm, { name: 'patch-leave', subscribers: [member.user] });
    const since = await lastOutboxId();
    const res = await patch(member, {
      add: JSON.stringify([
        { name: 'patch-new', color: '#e79ab5', description: 'New **one**' },
        { name: 'patch-have' },
      ]),
      delete: JSON.stringify(['patch-leave', 'retained']),
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users/me/subscriptions', 'patch', res.body);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      subscribed: { [String(member.user.id)]: ['patch-new'] },
      already_subscribed: { [String(member.user.id)]: ['patch-have'] },
      removed: ['patch-leave'],
      not_removed: ['retained'],
    });

    const created = await t.db.stream.findFirstOrThrow({ where: { name: 'patch-new' } });
    expect(created.renderedDescription).toBe('<p>New <strong>one</strong></p>');
    const sub = await t.db.subscription.findUniqueOrThrow({
      where: {
        userId_recipientId: { userId: member.user.id, recipientId: created.recipientId! },
      },
    });
    expect(sub).toMatchObject({ active: true, color: '#e79ab5' });
    expect(await isSubscribed(member.user.id, 'patch-leave')).toBe(false);

    const events = (await eventsSince(since)).map((e) => e.event);
    expect(events).toContainEqual(expect.objectContaining({ type: 'stream', op: 'create' }));
    const added = events.find((e) => e.type === 'subscription' && e.op === 'add');
    expect(added?.subscriptions).toEqual([
      expect.objectContaining({ name: 'patch-new', color: '#e79ab5' }),
    ]);
    const leave = await t.db.stream.findFirstOrThrow({ where: { name: 'patch-leave' } });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'subscription',
        op: 'remove',
        subscriptions: [{ name: 'patch-leave', stream_id: leave.id }],
      }),
    );
  });

  it('needs something to do', async () => {
    const forms: Record<string, string>[] = [{}, { add: '[]', delete: '[]' }];
    for (const form of forms) {
      const res = await patch(member, form);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Nothing to do. Specify at least one of "add" or "delete".',
      });
    }
  });

  it('POST takes a color for new subscriptions and checks it', async () => {
    const bad = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'colored', color: 'blue' }]),
    });
    expect(bad.body.msg).toBe('subscriptions[0]["color"] is not a valid hex color code');
    expect(await t.db.stream.findFirst({ where: { name: 'colored' } })).toBeNull();
    const ok = await org.as(member).post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'colored', color: '#abcdef' }]),
    });
    expect(ok.status).toBe(200);
    const listed = await org.as(member).get('/users/me/subscriptions');
    const sub = listed.body.subscriptions.find((s: { name: string }) => s.name === 'colored');
    expect(sub.color).toBe('#abcdef');
  });

  it('checks colors as Zulip does', async () => {
    const res = await patch(member, {
      add: JSON.stringify([{ name: 'patch-have' }, { name: 'patch-red', color: 'red' }]),
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('add[1]["color"] is not a valid hex color code');
    expect(await t.db.stream.findFirst({ where: { name: 'patch-red' } })).toBeNull();
  });

  it('changes nothing and sends no event when the add fails', async () => {
    await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      name: 'patch-hidden',
      inviteOnly: true,
    });
    await makeChannel(t, org.realm, { name: 'patch-stay', subscribers: [member.user] });
    const since = await lastOutboxId();
    const res = await patch(member, {
      add: JSON.stringify([{ name: 'patch-hidden' }]),
      delete: JSON.stringify(['patch-stay']),
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Unable to access channel (patch-hidden).');
    expect(await isSubscribed(member.user.id, 'patch-stay')).toBe(true);
    expect(await eventsSince(since)).toEqual([]);
  });

  it('undoes the add when the delete fails', async () => {
    const since = await lastOutboxId();
    const res = await patch(member, {
      add: JSON.stringify([{ name: 'patch-rolled-back' }]),
      delete: JSON.stringify(['patch-stay', 'patch-missing']),
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Channel(s) (patch-missing) do not exist');
    expect(await t.db.stream.findFirst({ where: { name: 'patch-rolled-back' } })).toBeNull();
    expect(await isSubscribed(member.user.id, 'patch-stay')).toBe(true);
    expect(await eventsSince(since)).toEqual([]);
  });

  // Zulip always runs the add part, which is require_non_guest_user, even for a bare delete.
  it('refuses guests as POST does', async () => {
    await makeChannel(t, org.realm, { name: 'patch-guest', subscribers: [guest.user] });
    const forms: Record<string, string>[] = [
      { add: JSON.stringify([{ name: 'patch-have' }]) },
      { delete: JSON.stringify(['patch-guest']) },
    ];
    for (const form of forms) {
      const res = await patch(guest, form);
      expect(res.status).toBe(400);
      expect(res.body.msg).toBe('Not allowed for guest users');
    }
    expect(await isSubscribed(guest.user.id, 'patch-guest')).toBe(true);
  });
});
