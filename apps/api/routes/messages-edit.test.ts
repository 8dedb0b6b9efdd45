import type { Stream } from '../../../generated/prisma/client';
import { RESOLVE_UNDO_GRACE_SECONDS } from '../../../libs/domain/messages/move-notices';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
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
let guest: TestUser;
let mod: TestUser;
let design: Stream;
let other: Stream;

beforeAll(async () => {
  org = await organization({
    members: {
      alice: { fullName: 'Alice Member' },
      bob: { fullName: 'Bob Member' },
      guest: 'guest',
      mod: 'moderator',
    },
    channels: { design: ['alice', 'bob', 'guest', 'mod'], other: ['alice', 'bob', 'mod'] },
  });
  ({ t } = org);
  ({ alice, bob, guest, mod } = org.users);
  ({ design, other } = org.channels);
});
afterAll(() => org.close());

const message = (id: number) => t.db.message.findUniqueOrThrow({ where: { id } });
/** The notification bot's messages in a topic, oldest first, with everyone's flags. */
const notices = (stream: Stream, topic: string) =>
  t.db.message.findMany({
    where: {
      recipientId: stream.recipientId!,
      subject: topic,
      sender: { fullName: 'Notification Bot', isBot: true },
    },
    orderBy: { id: 'asc' },
    include: { userMessages: true },
  });
const contents = async (stream: Stream, topic: string) =>
  (await notices(stream, topic)).map((m) => m.content);
const mention = (u: TestUser) => `@_**${u.user.fullName}|${u.user.id}**`;

describe('PATCH /messages/{id} content', () => {
  it('edits content, records history, updates mention flags and emits update_message', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'e', 'first draft');
    const res = await org.as(alice).patch(`/messages/${id}`, {
      content: 'now @**Bob Member**',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', detached_uploads: [] });
    const m = await message(id);
    expect(m.content).toBe('now @**Bob Member**');
    expect(m.lastEditTime).not.toBeNull();
    expect(m.editHistory).toEqual([
      expect.objectContaining({
        user_id: alice.user.id,
        prev_content: 'first draft',
        prev_rendered_content: '<p>first draft</p>',
      }),
    ]);
    const um = await t.db.userMessage.findUniqueOrThrow({
      where: { userId_messageId: { userId: bob.user.id, messageId: id } },
    });
    expect(um.flags & 8n).toBe(8n);
    const ev = await t.db.outboxEvent.findFirstOrThrow({
      where: { usersJson: { array_contains: [bob.user.id] } },
      orderBy: { id: 'desc' },
    });
    expect(ev.eventJson).toMatchObject({
      type: 'update_message',
      message_id: id,
      orig_content: 'first draft',
      flags: ['mentioned'],
    });
    const got = await org.as(bob).get(`/messages/${id}`);
    expect(got.body.message.last_edit_timestamp).toEqual(expect.any(Number));
    expect(got.body.message.edit_history).toHaveLength(1);
  });

  it("refuses editing someone else's message and past the time limit", async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'e', 'mine');
    const res = await org.as(bob).patch(`/messages/${id}`, { content: 'hijack' });
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "You don't have permission to edit this message",
    });
    await t.db.message.update({
      where: { id },
      data: { dateSent: new Date(Date.now() - 3600_000) },
    });
    const late = await org.as(alice).patch(`/messages/${id}`, { content: 'late' });
    expect(late.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'The time limit for editing this message has passed',
    });
    expect((await message(id)).content).toBe('mine');
  });

  it('rejects a request with nothing to change and a bad propagate_mode', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'e', 'x');
    expect((await org.as(alice).patch(`/messages/${id}`, {})).body).toMatchObject({
      msg: 'Nothing to change',
    });
    expect(
      (
        await org.as(alice).patch(`/messages/${id}`, {
          topic: 'y',
          propagate_mode: 'sideways',
        })
      ).body,
    ).toMatchObject({ msg: 'Invalid propagate_mode' });
    expect((await org.as(alice).patch('/messages/99999999', { content: 'y' })).body).toMatchObject({
      msg: 'Invalid message(s)',
    });
  });
});

describe('PATCH /messages/{id} moves', () => {
  it('moves a topic with change_later and change_all, recording history and last_moved', async () => {
    const a = await postToChannel(t, org.realm, alice.user, design, 'old', 'a');
    const b = await postToChannel(t, org.realm, bob.user, design, 'old', 'b');
    const c = await postToChannel(t, org.realm, alice.user, design, 'old', 'c');
    expect(
      (
        await org.as(bob).patch(`/messages/${b}`, {
          topic: 'new',
          propagate_mode: 'change_later',
        })
      ).status,
    ).toBe(200);
    expect((await message(a)).subject).toBe('old');
    expect((await message(b)).subject).toBe('new');
    expect((await message(c)).subject).toBe('new');
    const mc = await message(c);
    expect(mc.lastMovedTime).not.toBeNull();
    expect(mc.lastEditTime).toBeNull();
    expect(mc.editHistory).toEqual([
      expect.objectContaining({ prev_topic: 'old', topic: 'new', user_id: bob.user.id }),
    ]);
    await org.as(alice).patch(`/messages/${a}`, {
      topic: 'new',
      propagate_mode: 'change_all',
    });
    expect((await message(a)).subject).toBe('new');
  });

  it('resolves a topic without setting last_moved_timestamp', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'bug', 'x');
    expect(
      (
        await org.as(bob).patch(`/messages/${id}`, {
          topic: '✔ bug',
          propagate_mode: 'change_all',
        })
      ).status,
    ).toBe(200);
    const m = await message(id);
    expect(m.subject).toBe('✔ bug');
    expect(m.lastMovedTime).toBeNull();
  });

  it('moves to another channel (members may; guests may not)', async () => {
    const id = await postToChannel(t, org.realm, guest.user, design, 'mv', 'x');
    const refused = await org.as(guest).patch(`/messages/${id}`, { stream_id: other.id });
    expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid channel ID' });
    const ok = await org.as(alice).patch(`/messages/${id}`, { stream_id: other.id });
    expect(ok.status).toBe(200);
    const m = await message(id);
    expect(m.recipientId).toBe(other.recipientId);
    expect(m.editHistory).toEqual([
      expect.objectContaining({ prev_stream: design.id, stream: other.id }),
    ]);
  });

  it('refuses moves past the time limit for members but not moderators', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'limit', 'x');
    await t.db.message.update({
      where: { id },
      data: { dateSent: new Date(Date.now() - 8 * 86400_000) },
    });
    const late = await org.as(alice).patch(`/messages/${id}`, { topic: 'limit2' });
    expect(late.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "The time limit for editing this message's topic has passed.",
    });
    expect((await org.as(mod).patch(`/messages/${id}`, { topic: 'limit2' })).status).toBe(200);
  });

  it('refuses topics on direct messages', async () => {
    const id = await postDirect(t, org.realm, alice.user, [bob.user], 'dm');
    expect((await org.as(alice).patch(`/messages/${id}`, { topic: 'x' })).body).toMatchObject({
      msg: 'Direct messages cannot have topics.',
    });
  });
});

describe('PATCH /messages/{id} notices', () => {
  it('posts where a whole topic went, and where it came from when asked', async () => {
    await postToChannel(t, org.realm, alice.user, design, 'whole-a', 'one');
    const id = await postToChannel(t, org.realm, alice.user, design, 'whole-a', 'two');
    const res = await org.as(bob).patch(`/messages/${id}`, {
      topic: 'whole-b',
      propagate_mode: 'change_all',
    });
    expect(res.body).toEqual({ result: 'success', msg: '', detached_uploads: [] });
    expect(await contents(design, 'whole-b')).toEqual([
      `This topic was moved here from #**design>whole-a** by ${mention(bob)}.`,
    ]);
    // send_notification_to_old_thread defaults to false (FL 152).
    expect(await contents(design, 'whole-a')).toEqual([]);

    const again = await org.as(bob).patch(`/messages/${id}`, {
      topic: 'whole-c',
      propagate_mode: 'change_all',
      send_notification_to_old_thread: 'true',
      send_notification_to_new_thread: 'false',
    });
    expect(again.body).not.toHaveProperty('ignored_parameters_unsupported');
    // The earlier notice moved along with the topic, and no new one joined it there ...
    expect(await contents(design, 'whole-c')).toEqual([
      `This topic was moved here from #**design>whole-a** by ${mention(bob)}.`,
    ]);
    // ... while the old place now says where everything went.
    expect(await contents(design, 'whole-b')).toEqual([
      `This topic was moved to #**design>whole-c** by ${mention(bob)}.`,
    ]);
  });

  it('counts the messages of a partial move and links a single one', async () => {
    const first = await postToChannel(t, org.realm, alice.user, design, 'part a', '1');
    const second = await postToChannel(t, org.realm, alice.user, design, 'part a', '2');
    await postToChannel(t, org.realm, alice.user, design, 'part a', '3');
    await org.as(bob).patch(`/messages/${first}`, {
      topic: 'part b',
      send_notification_to_old_thread: 'true',
    });
    const link =
      `${realmUrl(org.realm.stringId, t.config)}/#narrow/channel/${design.id}-design` +
      `/topic/part.20b/near/${first}`;
    expect(await contents(design, 'part b')).toEqual([
      `[A message](${link}) was moved here from #**design>part a** by ${mention(bob)}.`,
    ]);
    expect(await contents(design, 'part a')).toEqual([
      `A message was moved from this topic to #**design>part b** by ${mention(bob)}.`,
    ]);

    // The rest (two messages and the notice left behind) into a topic that already has some.
    await org.as(bob).patch(`/messages/${second}`, {
      topic: 'part b',
      propagate_mode: 'change_later',
      send_notification_to_old_thread: 'true',
    });
    const inB = await contents(design, 'part b');
    expect(inB[inB.length - 1]).toBe(
      `3 messages were moved here from #**design>part a** by ${mention(bob)}.`,
    );
    expect(await contents(design, 'part a')).toEqual([
      `This topic was moved to #**design>part b** by ${mention(bob)}.`,
    ]);
  });

  it('says in the new channel where messages came from', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'travels', 'x');
    const res = await org.as(alice).patch(`/messages/${id}`, {
      stream_id: other.id,
      propagate_mode: 'change_all',
    });
    expect(res.status).toBe(200);
    expect(await contents(other, 'travels')).toEqual([
      `This topic was moved here from #**design>travels** by ${mention(alice)}.`,
    ]);
  });

  it('marks resolving and unresolving, unread only for the participants', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'flaky', 'it broke');
    await org.as(bob).patch(`/messages/${id}`, {
      topic: '✔ flaky',
      propagate_mode: 'change_all',
      send_notification_to_old_thread: 'true',
    });
    const [resolved] = await notices(design, '✔ flaky');
    expect(resolved.content).toBe(`${mention(bob)} has marked this topic as resolved.`);
    const unread = (userId: number) =>
      (Number(resolved.userMessages.find((um) => um.userId === userId)?.flags) & 1) === 0;
    expect(unread(alice.user.id)).toBe(true);
    expect(unread(mod.user.id)).toBe(false);
    // No "moved here" notice for a resolve; the old-thread one was asked for.
    expect(await notices(design, '✔ flaky')).toHaveLength(1);
    expect(await contents(design, 'flaky')).toEqual([
      `This topic was moved to #**design>✔ flaky** by ${mention(bob)}.`,
    ]);

    await t.db.message.update({
      where: { id: resolved.id },
      data: { dateSent: new Date(Date.now() - (RESOLVE_UNDO_GRACE_SECONDS + 5) * 1000) },
    });
    await org.as(bob).patch(`/messages/${id}`, {
      topic: 'flaky',
      propagate_mode: 'change_all',
    });
    expect((await contents(design, 'flaky')).slice(-1)).toEqual([
      `${mention(bob)} has marked this topic as unresolved.`,
    ]);
  });

  it('deletes the previous resolve notice when undone within the grace period', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'oops', 'x');
    await org.as(bob).patch(`/messages/${id}`, {
      topic: '✔ oops',
      propagate_mode: 'change_all',
    });
    const [resolved] = await notices(design, '✔ oops');
    expect(resolved).toBeDefined();
    await org.as(bob).patch(`/messages/${id}`, {
      topic: 'oops',
      propagate_mode: 'change_all',
    });
    expect(await t.db.message.findUnique({ where: { id: resolved.id } })).toBeNull();
    expect(await contents(design, 'oops')).toEqual([]);
  });
});

describe('GET /messages/{id}/history', () => {
  it('returns snapshots oldest first with a diff', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'h', 'one two');
    await org.as(alice).patch(`/messages/${id}`, { content: 'one three' });
    const res = await org.as(bob).get(`/messages/${id}/history`);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/{message_id}/history', 'get', res.body);
    const [first, second] = res.body.message_history;
    expect(first).toMatchObject({ content: 'one two', topic: 'h', user_id: alice.user.id });
    expect(second).toMatchObject({ content: 'one three', prev_content: 'one two' });
    expect(second.content_html_diff).toContain(
      '<span class="highlight_text_inserted">three</span>',
    );
  });

  it('is refused when the organization disables edit history', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'h', 'x');
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { allowEditHistory: false, messageEditHistoryVisibilityPolicy: 3 },
    });
    try {
      const res = await org.as(bob).get(`/messages/${id}/history`);
      expect(res.body).toMatchObject({
        code: 'BAD_REQUEST',
        msg: 'Message edit history is disabled in this organization',
      });
    } finally {
      await t.db.realm.update({
        where: { id: org.realm.id },
        data: { allowEditHistory: true, messageEditHistoryVisibilityPolicy: 1 },
      });
    }
  });
});

describe('DELETE /messages/{id}', () => {
  it('lets the sender delete, emits delete_message, and refuses others; admins may delete any', async () => {
    const id = await postToChannel(t, org.realm, alice.user, design, 'd', 'bye');
    const refused = await org.as(bob).delete(`/messages/${id}`);
    expect(refused.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "You don't have permission to delete this message",
    });
    const res = await org.as(alice).delete(`/messages/${id}`);
    expect(res.status).toBe(200);
    expect(await t.db.message.findUnique({ where: { id } })).toBeNull();
    const ev = await t.db.outboxEvent.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(ev.eventJson).toMatchObject({
      type: 'delete_message',
      message_ids: [id],
      message_type: 'stream',
      stream_id: design.id,
      topic: 'd',
    });
    const byBob = await postToChannel(t, org.realm, bob.user, design, 'd', 'admin removes');
    expect((await org.as(org.owner).delete(`/messages/${byBob}`)).status).toBe(200);
  });

  it('refuses after the delete time limit', async () => {
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { messageContentDeleteLimitSeconds: 60 },
    });
    const id = await postToChannel(t, org.realm, alice.user, design, 'd', 'old');
    await t.db.message.update({
      where: { id },
      data: { dateSent: new Date(Date.now() - 3600_000) },
    });
    const res = await org.as(alice).delete(`/messages/${id}`);
    expect(res.body).toMatchObject({ msg: 'The time limit for deleting this message has passed' });
    expect(await t.db.message.findUnique({ where: { id } })).not.toBeNull();
  });
});

describe('GET /users/me/{stream_id}/topics', () => {
  it('lists topics newest first, and the empty topic by display name', async () => {
    const ch = await makeChannel(t, org.realm, { subscribers: [alice.user, bob.user] });
    await postToChannel(t, org.realm, alice.user, ch, 'alpha', 'x');
    const beta = await postToChannel(t, org.realm, alice.user, ch, 'beta', 'x');
    const empty = await postToChannel(t, org.realm, alice.user, ch, '', 'x');
    const res = await org.as(bob).get(`/users/me/${ch.id}/topics`);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users/me/{stream_id}/topics', 'get', res.body);
    expect(res.body.topics.slice(0, 2)).toEqual([
      { name: 'general chat', max_id: empty },
      { name: 'beta', max_id: beta },
    ]);
    const raw = await org.as(bob).get(`/users/me/${ch.id}/topics`, {
      allow_empty_topic_name: 'true',
    });
    expect(raw.body.topics[0].name).toBe('');
  });

  it('hides protected history topics and refuses inaccessible channels', async () => {
    const secret = await makeChannel(t, org.realm, {
      inviteOnly: true,
      historyPublicToSubscribers: false,
      subscribers: [alice.user],
    });
    await postToChannel(t, org.realm, alice.user, secret, 'before', 'x');
    await addSubscribers(t, secret, [bob.user]);
    const after = await postToChannel(t, org.realm, alice.user, secret, 'after', 'x');
    const res = await org.as(bob).get(`/users/me/${secret.id}/topics`);
    expect(res.body.topics).toEqual([{ name: 'after', max_id: after }]);
    const refused = await org.as(mod).get(`/users/me/${secret.id}/topics`);
    expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid channel ID' });
  });
});
