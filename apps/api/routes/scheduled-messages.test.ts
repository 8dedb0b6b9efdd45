import type { Stream } from '../../../generated/prisma/client';
import { Jobs } from '../../../libs/jobs';
import { Role } from '../../../libs/domain/users/roles';
import { makeRealm, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { api } from '../../../test/requests';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let channel: Stream;

beforeAll(async () => {
  org = await organization({
    members: { alice: 'member', bob: 'member' },
    channels: { channel: ['alice', 'bob'] },
  });
  ({ t } = org);
  ({ alice, bob } = org.users);
  ({ channel } = org.channels);
});
afterAll(() => org.close());

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

const schedule = (who: TestUser, form: Record<string, string | number | boolean>) =>
  org.as(who).post('/scheduled_messages', {
    scheduled_delivery_timestamp: inAnHour(),
    content: 'Hello later',
    ...form,
  });

/** When the scheduled message's pending delivery job (written with it) may run. */
const jobDueAt = async (id: number) => {
  const jobs = await t.db.jobOutbox.findMany({
    where: { jobName: Jobs.deliverScheduledMessage.name, doneAt: null },
  });
  const mine = jobs.filter(
    (j) => (j.payload as { scheduledMessageId: number }).scheduledMessageId === id,
  );
  expect(mine.length).toBeLessThanOrEqual(1);
  return mine.length ? mine[0].runAt.getTime() : null;
};

const countRows = () => t.db.scheduledMessage.count();

function expectError(
  res: { status: number; body: Record<string, unknown> },
  msg: string,
  status = 400,
) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ result: 'error', msg });
}

describe('POST /scheduled_messages', () => {
  it('schedules a channel message: add event, listed, delivery job queued', async () => {
    const mark = await outboxMark(t);
    const at = inAnHour();
    const res = await org.as(alice).post('/scheduled_messages', {
      type: 'stream',
      to: channel.id,
      topic: 'plans',
      content: 'See you **soon**',
      scheduled_delivery_timestamp: at,
      read_by_sender: true,
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/scheduled_messages', 'post', res.body);
    const id = res.body.scheduled_message_id as number;
    const row = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      senderId: alice.user.id,
      recipientId: channel.recipientId,
      subject: 'plans',
      readBySender: true,
      delivered: false,
    });
    const expected = {
      scheduled_message_id: id,
      type: 'stream',
      to: channel.id,
      topic: 'plans',
      content: 'See you **soon**',
      rendered_content: '<p>See you <strong>soon</strong></p>',
      scheduled_delivery_timestamp: at,
      failed: false,
    };
    expect(await eventsAfter(t, mark)).toEqual([
      {
        event: { type: 'scheduled_messages', op: 'add', scheduled_messages: [expected] },
        users: [alice.user.id],
      },
    ]);
    const listed = await org.as(alice).get('/scheduled_messages');
    expect(listed.status).toBe(200);
    expectOpenApiResponse('/scheduled_messages', 'get', listed.body);
    expect(listed.body.scheduled_messages).toContainEqual(expected);
    // Others see only their own.
    const bobs = await org.as(bob).get('/scheduled_messages');
    expect(bobs.body.scheduled_messages).toEqual([]);
    const due = await jobDueAt(id);
    expect(due).not.toBeNull();
    expect(Math.abs(due! - at * 1000)).toBeLessThan(2000);
  });

  it('schedules a direct message with type direct, private and a single ID', async () => {
    for (const [type, to] of [
      ['direct', JSON.stringify([bob.user.id])],
      ['private', String(bob.user.id)],
    ]) {
      const res = await schedule(alice, { type, to });
      expect(res.status).toBe(200);
      const listed = await org.as(alice).get('/scheduled_messages');
      const dict = listed.body.scheduled_messages.find(
        (m: { scheduled_message_id: number }) =>
          m.scheduled_message_id === res.body.scheduled_message_id,
      );
      expect(dict).toMatchObject({ type: 'private', content: 'Hello later' });
      expect(dict.to).toContain(bob.user.id);
      expect(dict.topic).toBeUndefined();
    }
  });

  it('checks direct-message permissions when scheduling, writing nothing when refused', async () => {
    const admins = await t.db.userGroup.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'role:administrators' },
    });
    const carol = await makeUser(t, org.realm, { fullName: 'Carol' });
    const before = await countRows();
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { directMessageInitiatorGroupId: admins.id },
    });
    try {
      const res = await schedule(alice, {
        type: 'direct',
        to: JSON.stringify([carol.user.id]),
      });
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'You do not have permission to initiate direct message conversations.',
      });
      expect(await countRows()).toBe(before);
    } finally {
      await t.db.realm.update({
        where: { id: org.realm.id },
        data: { directMessageInitiatorGroupId: org.realm.directMessageInitiatorGroupId },
      });
    }
  });

  it('type channel works; (no topic) and the empty-topic display name are read as empty', async () => {
    for (const topic of ['(no topic)', 'general chat', '']) {
      const res = await schedule(alice, { type: 'channel', to: channel.id, topic });
      expect(res.status).toBe(200);
      const row = await t.db.scheduledMessage.findUniqueOrThrow({
        where: { id: res.body.scheduled_message_id },
      });
      expect(row.subject).toBe('');
    }
  });

  it('refuses the empty topic where the organization requires topics', async () => {
    const strict = await makeRealm(t);
    await t.db.realm.update({
      where: { id: strict.realm.id },
      data: { mandatoryTopics: true, topicsPolicy: 3 },
    });
    const user = await makeUser(t, strict.realm);
    const chan = await makeChannel(t, strict.realm, { subscribers: [user.user] });
    const before = await countRows();
    for (const topic of ['(no topic)', 'general chat', '']) {
      const res = await api(t, strict.host, 'post', '/scheduled_messages', user.auth, {
        type: 'stream',
        to: chan.id,
        topic,
        content: 'x',
        scheduled_delivery_timestamp: inAnHour(),
      });
      expectError(res, 'Topics are required in this organization.');
    }
    expect(await countRows()).toBe(before);
  });

  it('refuses a time not in the future, writing nothing', async () => {
    const before = await countRows();
    const res = await schedule(alice, {
      type: 'stream',
      to: channel.id,
      topic: 't',
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) - 10,
    });
    expectError(res, 'Scheduled delivery time must be in the future.');
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(await countRows()).toBe(before);
  });

  it('a nonexistent channel is STREAM_DOES_NOT_EXIST with stream_id', async () => {
    const before = await countRows();
    const res = await schedule(alice, { type: 'stream', to: 987654, topic: 't' });
    expectError(res, "Channel with ID '987654' does not exist");
    expect(res.body).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST', stream_id: 987654 });
    expect(await countRows()).toBe(before);
  });

  it('a nonexistent user is BAD_REQUEST naming the ID', async () => {
    const before = await countRows();
    const res = await schedule(alice, {
      type: 'direct',
      to: JSON.stringify([bob.user.id, 987654]),
    });
    expectError(res, 'Invalid user ID 987654');
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(await countRows()).toBe(before);
  });

  it('refuses empty content, a missing topic, bad types and a channel the user may not post in', async () => {
    const before = await countRows();
    expectError(
      await schedule(alice, { type: 'stream', to: channel.id, topic: 't', content: '  ' }),
      'Message must not be empty',
    );
    expectError(await schedule(alice, { type: 'stream', to: channel.id }), 'Missing topic');
    expectError(
      await schedule(alice, {
        type: 'stream',
        to: JSON.stringify([channel.id, 1]),
        topic: 't',
      }),
      'Cannot send to multiple channels',
    );
    const missing = await org.as(alice).post('/scheduled_messages', {
      type: 'stream',
      to: channel.id,
      topic: 't',
      content: 'x',
    });
    expectError(missing, "Missing 'scheduled_delivery_timestamp' argument");
    const adminsOnly = await makeChannel(t, org.realm, {
      subscribers: [alice.user],
      canSend: 'role:administrators',
    });
    expectError(
      await schedule(alice, { type: 'stream', to: adminsOnly.id, topic: 't' }),
      'You do not have permission to post in this channel.',
    );
    const privateChannel = await makeChannel(t, org.realm, { inviteOnly: true });
    expectError(
      await schedule(alice, { type: 'stream', to: privateChannel.id, topic: 't' }),
      `Not authorized to send to channel '${privateChannel.name}'`,
    );
    // A guest may not post in a public channel without subscribing.
    const guest = await makeUser(t, org.realm, { role: Role.GUEST });
    const publicChannel = await makeChannel(t, org.realm);
    expectError(
      await schedule(guest, { type: 'stream', to: publicChannel.id, topic: 't' }),
      `Not authorized to send to channel '${publicChannel.name}'`,
    );
    expect(await countRows()).toBe(before);
    // An administrator may post in the administrators-only channel.
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const ok = await schedule(admin, { type: 'stream', to: adminsOnly.id, topic: 't' });
    expect(ok.status).toBe(200);
  });

  it('truncates content over max_message_length', async () => {
    const res = await schedule(alice, {
      type: 'direct',
      to: JSON.stringify([bob.user.id]),
      content: 'a'.repeat(10001),
    });
    expect(res.status).toBe(200);
    const row = await t.db.scheduledMessage.findUniqueOrThrow({
      where: { id: res.body.scheduled_message_id },
    });
    expect(row.content.endsWith('[message truncated]')).toBe(true);
  });
});

describe('PATCH /scheduled_messages/{id}', () => {
  it('edits content, topic and time; emits update; moves the job', async () => {
    const created = await schedule(alice, { type: 'stream', to: channel.id, topic: 'a' });
    const id = created.body.scheduled_message_id as number;
    const mark = await outboxMark(t);
    const at = inAnHour() + 7200;
    const res = await org.as(alice).patch(`/scheduled_messages/${id}`, {
      content: 'edited',
      topic: 'b',
      scheduled_delivery_timestamp: at,
    });
    expect(res.status).toBe(200);
    // SimpleSuccess is a shared response the reference does not inline.
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const expected = {
      scheduled_message_id: id,
      type: 'stream',
      to: channel.id,
      topic: 'b',
      content: 'edited',
      rendered_content: '<p>edited</p>',
      scheduled_delivery_timestamp: at,
      failed: false,
    };
    expect(await eventsAfter(t, mark)).toEqual([
      {
        event: { type: 'scheduled_messages', op: 'update', scheduled_message: expected },
        users: [alice.user.id],
      },
    ]);
    const listed = await org.as(alice).get('/scheduled_messages');
    expect(listed.body.scheduled_messages).toContainEqual(expected);
    expect(Math.abs((await jobDueAt(id))! - at * 1000)).toBeLessThan(2000);
  });

  it('changes a channel message into a direct one and back', async () => {
    const created = await schedule(alice, { type: 'stream', to: channel.id, topic: 'a' });
    const id = created.body.scheduled_message_id as number;
    expectError(
      await org.as(alice).patch(`/scheduled_messages/${id}`, { type: 'direct' }),
      'Recipient required when updating type of scheduled message.',
    );
    expectError(
      await org.as(alice).patch(`/scheduled_messages/${id}`, {
        type: 'stream',
        to: channel.id,
      }),
      'Topic required when updating scheduled message type to channel.',
    );
    const toDirect = await org.as(alice).patch(`/scheduled_messages/${id}`, {
      type: 'direct',
      to: JSON.stringify([bob.user.id]),
    });
    expect(toDirect.status).toBe(200);
    let row = await t.db.scheduledMessage.findUniqueOrThrow({
      where: { id },
      include: { recipient: true },
    });
    expect(row.recipientId).not.toBe(channel.recipientId);
    expect(row.subject).toBe('');
    // Topic is ignored for a direct message.
    expect(
      (await org.as(alice).patch(`/scheduled_messages/${id}`, { topic: 'ignored' })).status,
    ).toBe(200);
    row = await t.db.scheduledMessage.findUniqueOrThrow({
      where: { id },
      include: { recipient: true },
    });
    expect(row.subject).toBe('');
    const back = await org.as(alice).patch(`/scheduled_messages/${id}`, {
      type: 'stream',
      to: channel.id,
      topic: 'again',
    });
    expect(back.status).toBe(200);
    row = await t.db.scheduledMessage.findUniqueOrThrow({
      where: { id },
      include: { recipient: true },
    });
    expect(row).toMatchObject({ recipientId: channel.recipientId, subject: 'again' });
  });

  it('bad edits change nothing', async () => {
    const created = await schedule(alice, { type: 'stream', to: channel.id, topic: 'keep' });
    const id = created.body.scheduled_message_id as number;
    const before = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id } });
    const mark = await outboxMark(t);
    expectError(await org.as(alice).patch(`/scheduled_messages/${id}`, {}), 'Nothing to change');
    expectError(
      await org.as(alice).patch(`/scheduled_messages/${id}`, { to: 987654, content: 'new' }),
      "Channel with ID '987654' does not exist",
    );
    expectError(
      await org.as(alice).patch(`/scheduled_messages/${id}`, {
        type: 'direct',
        to: JSON.stringify([987654]),
      }),
      'Invalid user ID 987654',
    );
    expectError(
      await org.as(alice).patch(`/scheduled_messages/${id}`, {
        content: 'new',
        scheduled_delivery_timestamp: 1000,
      }),
      'Scheduled delivery time must be in the future.',
    );
    expectError(
      await org.as(alice).patch(`/scheduled_messages/${id}`, { content: '' }),
      'Message must not be empty',
    );
    expect(await t.db.scheduledMessage.findUniqueOrThrow({ where: { id } })).toEqual(before);
    expect(await eventsAfter(t, mark)).toEqual([]);
  });

  it('a failed message needs a new time, which clears the failure', async () => {
    const created = await schedule(alice, { type: 'stream', to: channel.id, topic: 'f' });
    const id = created.body.scheduled_message_id as number;
    await t.db.scheduledMessage.update({
      where: { id },
      data: { failed: true, failureMessage: 'boom' },
    });
    expectError(
      await org.as(alice).patch(`/scheduled_messages/${id}`, { content: 'retry' }),
      'Scheduled delivery time must be in the future.',
    );
    const ok = await org.as(alice).patch(`/scheduled_messages/${id}`, {
      scheduled_delivery_timestamp: inAnHour(),
    });
    expect(ok.status).toBe(200);
    expect(await t.db.scheduledMessage.findUniqueOrThrow({ where: { id } })).toMatchObject({
      failed: false,
      failureMessage: null,
    });
  });

  it("another user's or an unknown scheduled message does not exist", async () => {
    const created = await schedule(alice, { type: 'stream', to: channel.id, topic: 'mine' });
    const id = created.body.scheduled_message_id as number;
    const before = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id } });
    for (const target of [id, 987654]) {
      const res = await org.as(bob).patch(`/scheduled_messages/${target}`, {
        content: 'hijack',
      });
      expectError(res, 'Scheduled message does not exist', 404);
      expect(res.body.code).toBe('BAD_REQUEST');
    }
    expect(await t.db.scheduledMessage.findUniqueOrThrow({ where: { id } })).toEqual(before);
  });
});

describe('DELETE /scheduled_messages/{id}', () => {
  it('deletes, emits remove, cancels the job; others and unknown ids are refused', async () => {
    const created = await schedule(alice, { type: 'stream', to: channel.id, topic: 'del' });
    const id = created.body.scheduled_message_id as number;
    expect(await jobDueAt(id)).not.toBeNull();

    const others = await org.as(bob).delete(`/scheduled_messages/${id}`);
    expectError(others, 'Scheduled message does not exist', 404);
    expectOpenApiResponse('/scheduled_messages/{scheduled_message_id}', 'delete', others.body, {
      status: 404,
    });
    expect(await t.db.scheduledMessage.count({ where: { id } })).toBe(1);

    const mark = await outboxMark(t);
    const res = await org.as(alice).delete(`/scheduled_messages/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    expect(await t.db.scheduledMessage.count({ where: { id } })).toBe(0);
    expect(await eventsAfter(t, mark)).toEqual([
      {
        event: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id },
        users: [alice.user.id],
      },
    ]);
    expect(await jobDueAt(id)).toBeNull();
    expectError(
      await org.as(alice).delete(`/scheduled_messages/${id}`),
      'Scheduled message does not exist',
      404,
    );
  });
});

describe('GET /scheduled_messages', () => {
  it('lists only undelivered ones, soonest first', async () => {
    const carol = await makeUser(t, org.realm);
    const late = await schedule(carol, {
      type: 'direct',
      to: JSON.stringify([alice.user.id, bob.user.id]),
      scheduled_delivery_timestamp: inAnHour() + 100,
    });
    const soon = await schedule(carol, { type: 'stream', to: channel.id, topic: 's' });
    const sent = await schedule(carol, { type: 'stream', to: channel.id, topic: 'x' });
    await t.db.scheduledMessage.update({
      where: { id: sent.body.scheduled_message_id },
      data: { delivered: true },
    });
    const res = await org.as(carol).get('/scheduled_messages');
    expectOpenApiResponse('/scheduled_messages', 'get', res.body);
    expect(
      res.body.scheduled_messages.map(
        (m: { scheduled_message_id: number }) => m.scheduled_message_id,
      ),
    ).toEqual([soon.body.scheduled_message_id, late.body.scheduled_message_id]);
    expect([...res.body.scheduled_messages[1].to].sort((a: number, b: number) => a - b)).toEqual(
      [alice.user.id, bob.user.id, carol.user.id].sort((a, b) => a - b),
    );
  });
});
