import type { Stream } from '../../../generated/prisma/client';
import { deleteTopic } from '../../../libs/domain/messages/delete-topic';
import { Role } from '../../../libs/domain/users/roles';
import { makeRealm, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel, addSubscribers } from '../../../test/channel-factories';
import { postToChannel } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let admin: TestUser;
let alice: TestUser;
let channel: Stream;

beforeAll(async () => {
  org = await organization({
    members: { admin: 'administrator', alice: 'member' },
    channels: { channel: ['alice'] },
  });
  ({ t } = org);
  ({ admin, alice } = org.users);
  ({ channel } = org.channels);
});
afterAll(() => org.close());

const deleteIn = (who: TestUser, streamId: number, topic: string) =>
  org.as(who).post(`/streams/${streamId}/delete_topic`, { topic_name: topic });

const remaining = (ids: number[]) => t.db.message.count({ where: { id: { in: ids } } });

async function post(stream: Stream, topic: string, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    ids.push(await postToChannel(t, org.realm, alice.user, stream, topic, `m${i}`));
  }
  return ids;
}

describe('POST /streams/{stream_id}/delete_topic', () => {
  it('deletes every message of the topic (any case), with delete_message and user_topic events', async () => {
    const doomed = await post(channel, 'Old News', 3);
    const kept = await post(channel, 'fresh', 1);
    await t.db.userTopic.create({
      data: {
        userId: alice.user.id,
        streamId: channel.id,
        recipientId: channel.recipientId!,
        topicName: 'old news',
        visibilityPolicy: 3,
      },
    });
    const mark = await outboxMark(t);
    const res = await deleteIn(admin, channel.id, 'old NEWS');
    expect(res.status).toBe(200);
    expectOpenApiResponse('/streams/{stream_id}/delete_topic', 'post', res.body);
    expect(res.body.complete).toBe(true);
    expect(await remaining(doomed)).toBe(0);
    expect(await remaining(kept)).toBe(1);

    // The channel's first message was among them, so its subscribers hear the new first one too.
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event.type)).toEqual([
      'stream',
      'delete_message',
      'muted_topics',
      'user_topic',
    ]);
    expect(events[0].event).toEqual({
      type: 'stream',
      op: 'update',
      property: 'first_message_id',
      value: kept[0],
      stream_id: channel.id,
      name: channel.name,
    });
    expect(events[1].event).toEqual({
      type: 'delete_message',
      message_type: 'stream',
      message_ids: doomed,
      stream_id: channel.id,
      topic: 'Old News',
    });
    expect(events[1].users).toContain(alice.user.id);
    expect(events[3]).toEqual({
      event: {
        type: 'user_topic',
        stream_id: channel.id,
        topic_name: 'old NEWS',
        last_updated: expect.any(Number),
        visibility_policy: 0,
      },
      users: [alice.user.id],
    });
    expect(await t.db.userTopic.count({ where: { streamId: channel.id } })).toBe(0);
    const first = await t.db.stream.findUniqueOrThrow({ where: { id: channel.id } });
    expect(first.firstMessageId).toBe(kept[0]);
  });

  it('reads the empty-topic display name as the empty topic', async () => {
    const empty = await post(channel, '', 1);
    const res = await deleteIn(admin, channel.id, 'general chat');
    expect(res.body).toEqual({ result: 'success', msg: '', complete: true });
    expect(await remaining(empty)).toBe(0);
  });

  it('deletes newest first in batches and reports an unfinished run', async () => {
    const ids = await post(channel, 'big', 5);
    const mark = await outboxMark(t);
    const limits = { batchSize: 2, timeBudgetMs: 0 };
    const input = { actor: admin.user, realm: org.realm, streamId: channel.id, topicName: 'big' };
    expect(await deleteTopic(t, { ...input, limits })).toEqual({ complete: false });
    expect(await remaining(ids)).toBe(3);
    expect(await remaining(ids.slice(3))).toBe(0);
    expect(
      await deleteTopic(t, { ...input, limits: { batchSize: 2, timeBudgetMs: 60_000 } }),
    ).toEqual({ complete: true });
    expect(await remaining(ids)).toBe(0);
    const batches = (await eventsAfter(t, mark)).map((e) => e.event.message_ids);
    expect(batches).toEqual([ids.slice(3), ids.slice(1, 3), ids.slice(0, 1)]);
  });

  it('is for administrators only', async () => {
    const ids = await post(channel, 'keep', 1);
    for (const role of [Role.MEMBER, Role.MODERATOR, Role.GUEST]) {
      const actor = role === Role.MEMBER ? alice : await makeUser(t, org.realm, { role });
      const res = await deleteIn(actor, channel.id, 'keep');
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization administrator',
      });
    }
    expect(await remaining(ids)).toBe(1);
    expect((await deleteIn(org.owner, channel.id, 'keep')).body.complete).toBe(true);
    expect(await remaining(ids)).toBe(0);
  });

  it('refuses channels the administrator cannot read, and unknown channels', async () => {
    const secret = await makeChannel(t, org.realm, { inviteOnly: true, subscribers: [alice.user] });
    const ids = await post(secret, 'hidden', 1);
    const invalid = { result: 'error', code: 'BAD_REQUEST', msg: 'Invalid channel ID' };
    expect((await deleteIn(admin, secret.id, 'hidden')).body).toEqual(invalid);
    expect((await deleteIn(admin, 999999, 'hidden')).body).toEqual(invalid);
    const other = await makeRealm(t);
    const theirs = await makeChannel(t, other.realm);
    expect((await deleteIn(admin, theirs.id, 'x')).body).toEqual(invalid);
    expect(await remaining(ids)).toBe(1);
    const missing = await org.as(admin).post(`/streams/${channel.id}/delete_topic`);
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'topic_name',
    });
  });

  it('in a channel with protected history, deletes only what the administrator received', async () => {
    const guarded = await makeChannel(t, org.realm, {
      inviteOnly: true,
      historyPublicToSubscribers: false,
      subscribers: [alice.user],
    });
    const before = await post(guarded, 'log', 2);
    await addSubscribers(t, guarded, [admin.user]);
    const after = await post(guarded, 'log', 1);
    await t.db.userTopic.create({
      data: {
        userId: alice.user.id,
        streamId: guarded.id,
        recipientId: guarded.recipientId!,
        topicName: 'log',
        visibilityPolicy: 1,
      },
    });
    const res = await deleteIn(admin, guarded.id, 'log');
    expect(res.body.complete).toBe(true);
    expect(await remaining(after)).toBe(0);
    expect(await remaining(before)).toBe(2);
    // Alice still has messages in the topic, so her muting stays.
    expect(await t.db.userTopic.count({ where: { streamId: guarded.id } })).toBe(1);
  });
});
