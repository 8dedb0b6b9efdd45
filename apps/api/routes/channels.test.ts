import type { Stream } from '../../../generated/prisma/client';
import {
  makeChannel,
  NEWER_CHANNEL_FIELDS,
  withoutNestedFields,
} from '../../../test/channel-factories';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let member: TestUser;
let guest: TestUser;
let admin: TestUser;
let pub: Stream;
let priv: Stream;

beforeAll(async () => {
  org = await organization({
    members: { member: 'member', guest: 'guest', admin: 'administrator' },
    channels: { 'private-one': { subscribers: ['owner'], inviteOnly: true } },
  });
  ({ t } = org);
  ({ member, guest, admin } = org.users);
  priv = org.channels['private-one'];
  // Created as a user creates one, with its "channel events" notice.
  const created = await org.as(org.owner).post('/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'public-one' }]),
    principals: JSON.stringify([org.owner.user.id, member.user.id]),
  });
  expect(created.status).toBe(200);
  pub = await t.db.stream.findFirstOrThrow({
    where: { realmId: org.realm.id, name: 'public-one' },
  });
});
afterAll(() => org.close());

const patch = (id: number, who: TestUser, form: Record<string, string>) =>
  org.as(who).patch(`/streams/${id}`, form);
const names = (body: { streams: { name: string }[] }) => body.streams.map((s) => s.name).sort();

describe('GET /streams', () => {
  it('lists public and subscribed channels in Zulip shape', async () => {
    const res = await org.as(member).get('/streams');
    expect(res.status).toBe(200);
    expectOpenApiResponse(
      '/streams',
      'get',
      withoutNestedFields(res.body, 'streams', NEWER_CHANNEL_FIELDS),
    );
    expect(names(res.body)).toEqual(['general', 'public-one']);
    const one = res.body.streams.find((s: { name: string }) => s.name === 'public-one');
    expect(one).toMatchObject({
      stream_id: pub.id,
      invite_only: false,
      is_archived: false,
      stream_post_policy: 1,
      is_announcement_only: false,
      // The notification bot's "channel events" notice, sent on creation.
      first_message_id: (
        await t.db.message.findFirstOrThrow({
          where: { recipientId: pub.recipientId!, subject: 'channel events' },
        })
      ).id,
      is_recently_active: true,
      stream_weekly_traffic: null,
      history_public_to_subscribers: true,
    });
    expect(typeof one.can_send_message_group).toBe('number');
  });

  it('shows private channels to administrators with include_all only', async () => {
    const plain = await org.as(admin).get('/streams');
    expect(names(plain.body)).not.toContain('private-one');
    const all = await org.as(admin).get('/streams?include_all=true');
    expect(names(all.body)).toContain('private-one');
    const memberAll = await org.as(member).get('/streams?include_all=true');
    expect(names(memberAll.body)).not.toContain('private-one');
  });

  it('gives guests only their subscriptions', async () => {
    const res = await org.as(guest).get('/streams');
    expect(names(res.body)).toEqual(['general']);
  });

  it('honours include_public, include_default and include_all_active', async () => {
    const noPublic = await org.as(admin).get('/streams?include_public=false');
    expect(names(noPublic.body)).toEqual(['general']);
    const withDefault = await org.as(member).get('/streams?include_default=true');
    const general = withDefault.body.streams.find((s: { name: string }) => s.name === 'general');
    expect(general.is_default).toBe(true);
    const denied = await org.as(member).get('/streams?include_all_active=true');
    expect(denied.status).toBe(400);
  });
});

describe('GET /streams/{stream_id}, /get_stream_id, /streams/{stream_id}/members', () => {
  it('returns one channel', async () => {
    const res = await org.as(member).get(`/streams/${pub.id}`);
    expect(res.status).toBe(200);
    expect(res.body.stream).toMatchObject({ stream_id: pub.id, name: 'public-one' });
    const hidden = await org.as(member).get(`/streams/${priv.id}`);
    expect(hidden.status).toBe(400);
    expect(hidden.body.msg).toBe('Invalid channel ID');
  });

  it('finds channel IDs by name', async () => {
    const res = await org.as(member).get('/get_stream_id?stream=PUBLIC-one');
    expect(res.status).toBe(200);
    expectOpenApiResponse('/get_stream_id', 'get', res.body);
    expect(res.body.stream_id).toBe(pub.id);
    const bad = await org.as(member).get('/get_stream_id?stream=nope');
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', msg: "Invalid channel name 'nope'" });
  });

  it('lists subscribers', async () => {
    const res = await org.as(member).get(`/streams/${pub.id}/members`);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/streams/{stream_id}/members', 'get', res.body);
    expect(res.body.subscribers).toEqual([org.owner.user.id, member.user.id].sort((a, b) => a - b));
    const hidden = await org.as(member).get(`/streams/${priv.id}/members`);
    expect(hidden.status).toBe(400);
  });
});

describe('PATCH /streams/{stream_id}', () => {
  it('renames and redescribes a channel, for administrators only', async () => {
    const denied = await patch(pub.id, member, { new_name: 'renamed' });
    expect(denied.status).toBe(400);
    expect(denied.body.msg).toBe('You do not have permission to administer this channel.');
    const res = await patch(pub.id, admin, {
      new_name: 'renamed',
      description: 'New *desc*',
    });
    expect(res.status).toBe(200);
    const row = await t.db.stream.findUniqueOrThrow({ where: { id: pub.id } });
    expect(row).toMatchObject({
      name: 'renamed',
      description: 'New *desc*',
      renderedDescription: '<p>New <em>desc</em></p>',
    });
    const clash = await patch(pub.id, admin, { new_name: 'GENERAL' });
    expect(clash.status).toBe(400);
    const same = await patch(pub.id, admin, { new_name: 'renamed' });
    expect(same.body.msg).toBe('Channel already has that name.');
  });

  it('makes a public channel private and back (spec 3)', async () => {
    const toPrivate = await patch(pub.id, org.owner, { is_private: 'true' });
    expect(toPrivate.status).toBe(200);
    let row = await t.db.stream.findUniqueOrThrow({ where: { id: pub.id } });
    expect(row.inviteOnly).toBe(true);
    const toPublic = await patch(pub.id, org.owner, { is_private: 'false' });
    expect(toPublic.status).toBe(200);
    row = await t.db.stream.findUniqueOrThrow({ where: { id: pub.id } });
    expect(row).toMatchObject({ inviteOnly: false, historyPublicToSubscribers: true });
  });

  it('refuses protected history on a public channel', async () => {
    const res = await patch(pub.id, org.owner, { history_public_to_subscribers: 'false' });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Invalid parameters');
    const mixed = await patch(pub.id, org.owner, {
      is_private: 'false',
      history_public_to_subscribers: 'false',
    });
    expect(mixed.body.msg).toBe('Invalid parameters');
  });

  it('needs content access to change a private channel privacy', async () => {
    const res = await patch(priv.id, admin, { is_private: 'false' });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Channel content access is required.');
  });

  it('refuses web-public channels when the organization disallows them', async () => {
    const res = await patch(pub.id, org.owner, { is_web_public: 'true' });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Web-public channels are not enabled.');
  });

  it('sets message retention for owners only', async () => {
    const denied = await patch(pub.id, admin, { message_retention_days: '10' });
    expect(denied.body.msg).toBe('Must be an organization owner');
    const ok = await patch(pub.id, org.owner, { message_retention_days: '10' });
    expect(ok.status).toBe(200);
    const bad = await patch(pub.id, org.owner, { message_retention_days: 'forever' });
    expect(bad.body.msg).toBe("Bad value for 'message_retention_days': forever");
    const back = await patch(pub.id, org.owner, { message_retention_days: 'realm_default' });
    expect(back.status).toBe(200);
    const row = await t.db.stream.findUniqueOrThrow({ where: { id: pub.id } });
    expect(row.messageRetentionDays).toBeNull();
  });

  it('updates group settings with new/old and detects conflicts', async () => {
    const groups = await t.db.userGroup.findMany({
      where: { realmId: org.realm.id, isSystemGroup: true },
    });
    const id = (name: string) => groups.find((g) => g.name === name)!.id;
    const conflict = await patch(pub.id, admin, {
      can_send_message_group: JSON.stringify({
        new: id('role:administrators'),
        old: id('role:members'),
      }),
    });
    expect(conflict.status).toBe(400);
    expect(conflict.body.msg).toBe("'old' value does not match the expected value.");
    const ok = await patch(pub.id, admin, {
      can_send_message_group: JSON.stringify({
        new: id('role:administrators'),
        old: id('role:everyone'),
      }),
    });
    expect(ok.status).toBe(200);
    const channel = await org.as(member).get(`/streams/${pub.id}`);
    expect(channel.body.stream).toMatchObject({
      can_send_message_group: id('role:administrators'),
      stream_post_policy: 2,
      is_announcement_only: true,
    });
    const anon = await patch(pub.id, admin, {
      can_administer_channel_group: JSON.stringify({
        new: { direct_members: [member.user.id], direct_subgroups: [id('role:moderators')] },
      }),
    });
    expect(anon.status).toBe(200);
    const after = await org.as(member).get(`/streams/${pub.id}`);
    expect(after.body.stream.can_administer_channel_group).toEqual({
      direct_members: [member.user.id],
      direct_subgroups: [id('role:moderators')],
    });
    // The member now administers the channel through the anonymous group.
    const memberEdit = await patch(pub.id, member, { description: 'by member' });
    expect(memberEdit.status).toBe(200);
  });

  it('toggles default channels', async () => {
    const res = await patch(pub.id, admin, { is_default_stream: 'true' });
    expect(res.status).toBe(200);
    const list = await org.as(member).get('/default_streams');
    expect(list.body.default_streams.map((s: { name: string }) => s.name)).toContain('renamed');
    const off = await org.as(admin).delete('/default_streams', { stream_id: String(pub.id) });
    expect(off.status).toBe(200);
    const again = await org.as(admin).delete('/default_streams', { stream_id: String(pub.id) });
    expect(again.status).toBe(400);
    const memberAdd = await org.as(member).post('/default_streams', { stream_id: String(pub.id) });
    expect(memberAdd.body.msg).toBe('Must be an organization administrator');
  });

  it('refuses unknown channels', async () => {
    const res = await patch(999999, admin, { description: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Invalid channel ID');
  });
});

describe('DELETE /streams/{stream_id}', () => {
  it('archives a channel, hiding it by default', async () => {
    const chan = await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      name: 'to-archive',
    });
    const denied = await org.as(member).delete(`/streams/${chan.id}`);
    expect(denied.status).toBe(400);
    const res = await org.as(admin).delete(`/streams/${chan.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const listed = await org.as(member).get('/streams');
    expect(names(listed.body)).not.toContain('to-archive');
    const withArchived = await org.as(member).get('/streams?exclude_archived=false');
    const archived = withArchived.body.streams.find(
      (s: { name: string }) => s.name === 'to-archive',
    );
    expect(archived.is_archived).toBe(true);
    const join = await org
      .as(member)
      .post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'to-archive' }]) });
    // Since FL 362 subscriptions in archived channels may change.
    expect(join.status).toBe(200);
    const stored = await t.db.stream.findUniqueOrThrow({ where: { id: chan.id } });
    expect(stored.isArchived).toBe(true);
    const twice = await org.as(admin).delete(`/streams/${chan.id}`);
    expect(twice.status).toBe(400);
  });
  it('says so in the channel, with every copy already read', async () => {
    const chan = await makeChannel(t, org.realm, {
      name: 'archived-notice',
      subscribers: [org.owner.user, member.user],
    });
    const mark = await outboxMark(t);
    expect((await org.as(admin).delete(`/streams/${chan.id}`)).status).toBe(200);
    const notice = await t.db.message.findFirstOrThrow({
      where: { recipientId: chan.recipientId!, subject: 'channel events' },
      orderBy: { id: 'desc' },
      include: { sender: true, userMessages: true },
    });
    expect(notice.sender.fullName).toBe('Notification Bot');
    expect(notice.content).toBe('Channel #**archived-notice** has been archived.');
    const copies = notice.userMessages.filter((um) => um.userId !== notice.senderId);
    expect(copies.map((um) => um.userId).sort()).toEqual(
      [org.owner.user.id, member.user.id].sort(),
    );
    for (const um of copies) expect(Number(um.flags) & 1).toBe(1);
    const events = await eventsAfter(t, mark);
    const messageEvent = events.find(
      (e) => e.event.type === 'message' && e.users.includes(member.user.id),
    );
    expect(messageEvent?.event.flags).toEqual(['read']);
    // The notice commits with the archive: the channel ends archived, the notice in it.
    expect((await t.db.stream.findUniqueOrThrow({ where: { id: chan.id } })).isArchived).toBe(true);
  });
});

describe('PATCH /streams/{stream_id} with is_archived', () => {
  const archive = async (id: number) =>
    expect((await org.as(admin).delete(`/streams/${id}`)).status).toBe(200);

  it('lets administrators unarchive, with stream events and a notice in the channel', async () => {
    const chan = await makeChannel(t, org.realm, {
      name: 'to-restore',
      subscribers: [org.owner.user, member.user],
    });
    await archive(chan.id);

    const denied = await patch(chan.id, member, { is_archived: 'false' });
    expect(denied.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'You do not have permission to administer this channel.',
    });
    expect((await t.db.stream.findUniqueOrThrow({ where: { id: chan.id } })).isArchived).toBe(true);

    const mark = await outboxMark(t);
    const res = await patch(chan.id, admin, { is_archived: 'false' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const stored = await t.db.stream.findUniqueOrThrow({ where: { id: chan.id } });
    expect(stored).toMatchObject({ isArchived: false, name: 'to-restore' });

    const events = await eventsAfter(t, mark);
    const update = events.find((e) => e.event.type === 'stream' && e.event.op === 'update');
    expect(update?.event).toEqual({
      type: 'stream',
      op: 'update',
      property: 'is_archived',
      value: false,
      stream_id: chan.id,
      name: 'to-restore',
    });
    expect(update?.users).toEqual(expect.arrayContaining([member.user.id, admin.user.id]));
    expect(update?.users).not.toContain(guest.user.id);
    const create = events.find((e) => e.event.type === 'stream' && e.event.op === 'create');
    expect(create?.event).toMatchObject({
      for_unarchiving: true,
      streams: [{ stream_id: chan.id, is_archived: false }],
    });
    expect(create?.users).toEqual(update?.users);
    const notice = events.find((e) => e.event.type === 'message');
    expect(notice?.event.message).toMatchObject({
      stream_id: chan.id,
      subject: 'channel events',
      sender_full_name: 'Notification Bot',
    });
    expect(notice?.event.internal).toMatchObject({
      rawContent: 'Channel #**to-restore** has been unarchived.',
    });
    expect(notice?.users).toContain(member.user.id);

    const listed = await org.as(member).get('/streams');
    expect(names(listed.body)).toContain('to-restore');
    const post = await org.as(member).post('/messages', {
      type: 'stream',
      to: String(chan.id),
      topic: 'back',
      content: 'hello again',
    });
    expect(post.status).toBe(200);

    const again = await patch(chan.id, admin, { is_archived: 'false' });
    expect(again.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Channel is not currently deactivated',
    });
  });

  it('refuses a private channel nobody is subscribed to', async () => {
    const chan = await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      name: 'lonely',
      inviteOnly: true,
    });
    await archive(chan.id);
    await t.db.subscription.updateMany({
      where: { recipientId: chan.recipientId! },
      data: { active: false },
    });
    const res = await patch(chan.id, admin, { is_archived: 'false' });
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Channel is private and have no subscribers',
    });
    expect((await t.db.stream.findUniqueOrThrow({ where: { id: chan.id } })).isArchived).toBe(true);
  });

  it('ignores is_archived=true, as archiving is DELETE', async () => {
    const chan = await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      name: 'stays-active',
    });
    const res = await patch(chan.id, admin, { is_archived: 'true' });
    expect(res.status).toBe(200);
    expect((await t.db.stream.findUniqueOrThrow({ where: { id: chan.id } })).isArchived).toBe(
      false,
    );
  });
});
