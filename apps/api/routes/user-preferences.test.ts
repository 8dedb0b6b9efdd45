import { makeChannel } from '../../../test/channel-factories';
import { makeUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { Role } from '../../../libs/domain/users/roles';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({});
  ({ t } = org);
});
afterAll(() => org.close());

describe('alert words', () => {
  it('adds, lists and removes words with alert_words events', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    const added = await org.as(member).post('/users/me/alert_words', {
      alert_words: JSON.stringify(['Coffee', ' tea ', '', 'coffee']),
    });
    expect(added.status).toBe(200);
    expectOpenApiResponse('/users/me/alert_words', 'post', added.body);
    expect(added.body.alert_words).toEqual(['Coffee', 'tea']);
    const listed = await org.as(member).get('/users/me/alert_words');
    expectOpenApiResponse('/users/me/alert_words', 'get', listed.body);
    expect(listed.body.alert_words).toEqual(['Coffee', 'tea']);
    const removed = await org.as(member).delete('/users/me/alert_words', {
      alert_words: JSON.stringify(['COFFEE', 'absent']),
    });
    expectOpenApiResponse('/users/me/alert_words', 'delete', removed.body);
    expect(removed.body.alert_words).toEqual(['tea']);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'alert_words', alert_words: ['Coffee', 'tea'] },
      { type: 'alert_words', alert_words: ['tea'] },
    ]);
    expect(events[0].users).toEqual([member.user.id]);
  });

  it('refuses bad input', async () => {
    const member = await makeUser(t, org.realm);
    const missing = await org.as(member).post('/users/me/alert_words', {});
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'alert_words',
    });
    const notList = await org.as(member).post('/users/me/alert_words', {
      alert_words: '"x"',
    });
    expect(notList.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'alert_words is not a list' });
    const tooLong = await org.as(member).post('/users/me/alert_words', {
      alert_words: JSON.stringify(['x'.repeat(101)]),
    });
    expect(tooLong.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'alert_words[0] is too long (limit: 100 characters)',
    });
  });
});

describe('muted users', () => {
  it('mutes and unmutes a user, marking their messages read', async () => {
    const member = await makeUser(t, org.realm);
    const other = await makeUser(t, org.realm);
    const third = await makeUser(t, org.realm);
    const channel = await makeChannel(t, org.realm, {
      subscribers: [member.user, other.user, third.user],
    });
    const inChannel = await postToChannel(t, org.realm, other.user, channel, 'lunch', 'soup?');
    const direct = await postDirect(t, org.realm, other.user, [member.user], 'hi');
    const fromThird = await postDirect(t, org.realm, third.user, [member.user], 'hello');
    // Already read: not reported again.
    const alreadyRead = await postDirect(t, org.realm, other.user, [member.user], 'old news');
    await t.db.userMessage.update({
      where: { userId_messageId: { userId: member.user.id, messageId: alreadyRead } },
      data: { flags: 1n },
    });
    const mark = await outboxMark(t);
    const res = await org.as(member).post(`/users/me/muted_users/${other.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const flags = async (userId: number, messageId: number) =>
      Number((await t.db.userMessage.findFirstOrThrow({ where: { userId, messageId } })).flags) & 1;
    expect(await flags(member.user.id, inChannel)).toBe(1);
    expect(await flags(member.user.id, direct)).toBe(1);
    expect(await flags(member.user.id, fromThird)).toBe(0);
    expect(await flags(third.user.id, inChannel)).toBe(0);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      {
        type: 'update_message_flags',
        op: 'add',
        operation: 'add',
        flag: 'read',
        messages: [inChannel, direct],
        all: false,
      },
      { type: 'muted_users', muted_users: [{ id: other.user.id, timestamp: expect.any(Number) }] },
    ]);
    expect(events.every((e) => e.users.length === 1 && e.users[0] === member.user.id)).toBe(true);
    const again = await org.as(member).post(`/users/me/muted_users/${other.user.id}`);
    expect(again.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'User already muted' });

    const unmuted = await org.as(member).delete(`/users/me/muted_users/${other.user.id}`);
    expect(unmuted.status).toBe(200);
    const notMuted = await org.as(member).delete(`/users/me/muted_users/${other.user.id}`);
    expect(notMuted.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'User is not muted',
    });
  });

  it('refuses muting self and unknown users', async () => {
    const member = await makeUser(t, org.realm);
    const self = await org.as(member).post(`/users/me/muted_users/${member.user.id}`);
    expect(self.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'Cannot mute self' });
    const unknown = await org.as(member).post('/users/me/muted_users/999999');
    expect(unknown.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'No such user' });
  });
});

describe('POST /user_topics', () => {
  it('mutes, follows and resets a topic with user_topic events', async () => {
    const member = await makeUser(t, org.realm);
    const channel = await makeChannel(t, org.realm, { subscribers: [member.user] });
    const mark = await outboxMark(t);
    const muted = await org.as(member).post('/user_topics', {
      stream_id: channel.id,
      topic: 'Lunch',
      visibility_policy: 1,
    });
    expect(muted.status).toBe(200);
    expect(muted.body).toEqual({ result: 'success', msg: '' });
    await org.as(member).post('/user_topics', {
      stream_id: channel.id,
      topic: 'lunch',
      visibility_policy: 3,
    });
    const rows = await t.db.userTopic.findMany({ where: { userId: member.user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ topicName: 'lunch', visibilityPolicy: 3 });
    await org.as(member).post('/user_topics', {
      stream_id: channel.id,
      topic: 'LUNCH',
      visibility_policy: 0,
    });
    expect(await t.db.userTopic.count({ where: { userId: member.user.id } })).toBe(0);
    // Each change also sends the legacy muted_topics list first, as Zulip still does.
    const events = (await eventsAfter(t, mark)).map((e) => e.event);
    expect(events).toEqual([
      { type: 'muted_topics', muted_topics: [[channel.name, 'Lunch', expect.any(Number)]] },
      {
        type: 'user_topic',
        stream_id: channel.id,
        topic_name: 'Lunch',
        last_updated: expect.any(Number),
        visibility_policy: 1,
      },
      { type: 'muted_topics', muted_topics: [] },
      expect.objectContaining({ topic_name: 'lunch', visibility_policy: 3 }),
      { type: 'muted_topics', muted_topics: [] },
      expect.objectContaining({ topic_name: 'LUNCH', visibility_policy: 0 }),
    ]);
  });

  it('refuses inaccessible channels (guests and private channels) and bad values', async () => {
    const guest = await makeUser(t, org.realm, { role: Role.GUEST });
    const member = await makeUser(t, org.realm);
    const publicChannel = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const privateChannel = await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      inviteOnly: true,
    });
    const guestRes = await org.as(guest).post('/user_topics', {
      stream_id: publicChannel.id,
      topic: 'x',
      visibility_policy: 1,
    });
    expect(guestRes.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Invalid channel ID',
    });
    const memberPublic = await org.as(member).post('/user_topics', {
      stream_id: publicChannel.id,
      topic: 'x',
      visibility_policy: 1,
    });
    expect(memberPublic.status).toBe(200);
    const memberPrivate = await org.as(member).post('/user_topics', {
      stream_id: privateChannel.id,
      topic: 'x',
      visibility_policy: 1,
    });
    expect(memberPrivate.body).toMatchObject({ msg: 'Invalid channel ID' });
    const unknown = await org.as(member).post('/user_topics', {
      stream_id: 999999,
      topic: 'x',
      visibility_policy: 1,
    });
    expect(unknown.body).toMatchObject({ msg: 'Invalid channel ID' });
    const badPolicy = await org.as(member).post('/user_topics', {
      stream_id: publicChannel.id,
      topic: 'x',
      visibility_policy: 7,
    });
    expect(badPolicy.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid visibility_policy' });
    const longTopic = await org.as(member).post('/user_topics', {
      stream_id: publicChannel.id,
      topic: 'x'.repeat(61),
      visibility_policy: 1,
    });
    expect(longTopic.body).toMatchObject({ msg: 'topic is too long (limit: 60 characters)' });
  });
});

describe('PATCH /users/me/subscriptions/muted_topics (deprecated)', () => {
  it('mutes and unmutes by channel ID or name', async () => {
    const member = await makeUser(t, org.realm);
    const channel = await makeChannel(t, org.realm, { subscribers: [member.user] });
    const patch = (form: Record<string, string | number>) =>
      org.as(member).patch('/users/me/subscriptions/muted_topics', form);
    expect((await patch({ stream_id: channel.id, topic: 'noise', op: 'add' })).status).toBe(200);
    const row = await t.db.userTopic.findFirstOrThrow({ where: { userId: member.user.id } });
    expect(row.visibilityPolicy).toBe(1);
    const again = await patch({ stream: channel.name, topic: 'Noise', op: 'add' });
    expect(again.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Topic already muted',
    });
    expect((await patch({ stream: channel.name, topic: 'noise', op: 'remove' })).status).toBe(200);
    const notMuted = await patch({ stream_id: channel.id, topic: 'noise', op: 'remove' });
    expect(notMuted.body.msg).toBe('Topic is not muted');
    const both = await patch({
      stream_id: channel.id,
      stream: channel.name,
      topic: 'x',
      op: 'add',
    });
    expect(both.body.msg).toBe('Please supply exactly one of stream or stream_id.');
  });
});
