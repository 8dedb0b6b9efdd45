import type { Stream } from '../../../generated/prisma/client';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { systemGroupIds } from '../../../libs/domain/groups/system-groups';
import { makeChannel } from '../../../test/channel-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsForQueue, type DomainEvent } from '../../../libs/protocol/event-catalogue';
import { queueSettings } from '../../../test/events-factories';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;
let channel: Stream;

beforeAll(async () => {
  org = await organization({
    members: {
      alice: { fullName: 'Alice Member' },
      bob: { fullName: 'Bob Member' },
      guest: 'guest',
    },
    channels: { design: ['alice', 'bob'] },
  });
  ({ t } = org);
  ({ alice, bob, guest } = org.users);
  channel = org.channels.design;
});
afterAll(() => org.close());

const send = (who: TestUser, form: Record<string, string>, agent = 'ZulipPython/0.9.0') =>
  org.as(who).post('/messages', form).set('User-Agent', agent);

const userMessages = (messageId: number) =>
  t.db.userMessage.findMany({ where: { messageId }, orderBy: { userId: 'asc' } });

describe('POST /messages to a channel', () => {
  it('sends by channel id and writes one UserMessage per subscriber', async () => {
    const res = await send(alice, {
      type: 'stream',
      to: String(channel.id),
      topic: 'plans',
      content: 'hello **world**',
    });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages', 'post', res.body);
    const message = await t.db.message.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(message).toMatchObject({
      subject: 'plans',
      content: 'hello **world**',
      renderedContent: '<p>hello <strong>world</strong></p>',
      sendingClientName: 'ZulipPython',
    });
    const ums = await userMessages(res.body.id);
    expect(ums.map((u) => u.userId).sort()).toEqual([alice.user.id, bob.user.id].sort());
    // API clients leave the sender's copy unread (spec 2.9).
    expect(ums.every((u) => u.flags === 0n)).toBe(true);
    const stream = await t.db.stream.findUniqueOrThrow({ where: { id: channel.id } });
    expect(stream.firstMessageId).not.toBeNull();
  });

  it('accepts the name, a JSON list of one name, type channel and the legacy subject', async () => {
    const forms: Record<string, string>[] = [
      { type: 'channel', to: 'Design', topic: 'a', content: 'x' },
      { type: 'stream', to: '["design"]', subject: 'b', content: 'y' },
    ];
    for (const form of forms) {
      const res = await send(alice, form);
      expect(res.status).toBe(200);
    }
  });

  it('marks the sender copy read for interactive clients and read_by_sender', async () => {
    const web = await send(
      alice,
      { type: 'stream', to: 'design', topic: 't', content: 'x' },
      'ZulipMobile/27',
    );
    const own = (await userMessages(web.body.id)).find((u) => u.userId === alice.user.id);
    expect(own?.flags).toBe(1n);
    const forced = await send(alice, {
      type: 'stream',
      to: 'design',
      topic: 't',
      content: 'y',
      read_by_sender: 'true',
    });
    const own2 = (await userMessages(forced.body.id)).find((u) => u.userId === alice.user.id);
    expect(own2?.flags).toBe(1n);
  });

  it('sets mentioned and wildcard flags', async () => {
    const res = await send(alice, {
      type: 'stream',
      to: 'design',
      topic: 'm',
      content: '@**Bob Member** look',
    });
    const bobCopy = (await userMessages(res.body.id)).find((u) => u.userId === bob.user.id);
    expect(bobCopy?.flags).toBe(8n);
    const all = await send(alice, {
      type: 'stream',
      to: 'design',
      topic: 'm',
      content: '@**all** hi',
    });
    const flags = (await userMessages(all.body.id)).map((u) => u.flags);
    expect(flags.every((f) => (f & 16n) === 16n)).toBe(true);
  });

  it('sets has_alert_word for users with a matching alert word', async () => {
    await t.db.alertWord.create({ data: { userId: bob.user.id, word: 'deploy' } });
    const res = await send(alice, {
      type: 'stream',
      to: 'design',
      topic: 'm',
      content: 'We deploy today',
    });
    const bobCopy = (await userMessages(res.body.id)).find((u) => u.userId === bob.user.id);
    expect(bobCopy?.flags).toBe(64n);
  });

  it('reads (no topic) and the empty-topic display name as the empty topic', async () => {
    for (const topic of ['(no topic)', 'general chat', '']) {
      const res = await send(alice, { type: 'stream', to: 'design', topic, content: 'x' });
      expect(res.status).toBe(200);
      const m = await t.db.message.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(m.subject).toBe('');
    }
  });

  it('truncates over-long topics and content the way Zulip does', async () => {
    const res = await send(alice, {
      type: 'stream',
      to: 'design',
      topic: 'x'.repeat(70),
      content: 'y'.repeat(10050),
    });
    const m = await t.db.message.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(m.subject).toBe(`${'x'.repeat(57)}...`);
    expect(m.content.length).toBe(10000);
    expect(m.content.endsWith('\n[message truncated]')).toBe(true);
  });
});

describe('POST /messages errors leave no partial write', () => {
  const cases: [string, Record<string, string>, number, Record<string, unknown>][] = [
    [
      'unknown channel id',
      { type: 'stream', to: '999999', topic: 'a', content: 'x' },
      400,
      {
        code: 'STREAM_DOES_NOT_EXIST',
        msg: "Channel with ID '999999' does not exist",
        stream_id: 999999,
      },
    ],
    [
      'unknown channel name',
      { type: 'stream', to: 'nope', topic: 'a', content: 'x' },
      400,
      { code: 'STREAM_DOES_NOT_EXIST', msg: "Channel 'nope' does not exist", stream: 'nope' },
    ],
    [
      'empty content',
      { type: 'stream', to: 'design', topic: 'a', content: '  ' },
      400,
      { code: 'BAD_REQUEST', msg: 'Message must not be empty' },
    ],
    [
      'missing content',
      { type: 'stream', to: 'design', topic: 'a' },
      400,
      { code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'content' argument" },
    ],
    [
      'missing topic',
      { type: 'stream', to: 'design', content: 'x' },
      400,
      { code: 'BAD_REQUEST', msg: 'Missing topic' },
    ],
    [
      'bad type',
      { type: 'email', to: 'design', content: 'x' },
      400,
      { code: 'BAD_REQUEST', msg: 'Invalid type' },
    ],
    [
      'control character in topic',
      { type: 'stream', to: 'design', topic: 'a\u0001b', content: 'x' },
      400,
      { code: 'BAD_REQUEST', msg: 'Invalid character in topic, at position 2!' },
    ],
    [
      'unknown user id',
      { type: 'direct', to: '[999999]', content: 'x' },
      400,
      { code: 'BAD_REQUEST', msg: 'Invalid user ID 999999' },
    ],
    [
      'unknown email',
      { type: 'private', to: 'nobody@example.com', content: 'x' },
      400,
      { code: 'BAD_REQUEST', msg: "Invalid email 'nobody@example.com'" },
    ],
  ];
  it.each(cases)('%s', async (_name, form, status, body) => {
    const before = await t.db.message.count();
    const res = await send(alice, form);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ result: 'error', ...body });
    expect(await t.db.message.count()).toBe(before);
  });

  it('writes nothing of a channel message whose event row fails, and sends the next', async () => {
    // A channel message commits as one statement, its event's outbox row included: a failure in
    // that row must take the message, its copies and its owed work with it.
    await t.db.$executeRawUnsafe(`
      CREATE FUNCTION refuse_marked_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event_json::text LIKE '%refused in its event%' THEN
          RAISE EXCEPTION 'event row refused';
        END IF;
        RETURN NEW;
      END $$`);
    await t.db.$executeRawUnsafe(`
      CREATE TRIGGER refuse_marked_event BEFORE INSERT ON outbox_events
      FOR EACH ROW EXECUTE FUNCTION refuse_marked_event()`);
    const counts = async () => ({
      messages: await t.db.message.count(),
      copies: await t.db.userMessage.count(),
      pending: await t.db.notificationPending.count(),
      jobs: await t.db.jobOutbox.count(),
      events: await t.db.outboxEvent.count(),
    });
    try {
      const before = await counts();
      const form = { type: 'stream', to: String(channel.id), topic: 'fault' };
      const res = await send(alice, { ...form, content: 'refused in its event' });
      expect(res.status).toBe(500);
      expect(await counts()).toEqual(before);

      // A mention, so that the message owes a notification decision too.
      const next = await send(alice, { ...form, content: 'written whole, @**Bob Member**' });
      expect(next.status).toBe(200);
      const after = await counts();
      expect(after).toEqual({
        messages: before.messages + 1,
        copies: before.copies + 2,
        pending: before.pending + 1,
        jobs: before.jobs + 1,
        events: before.events + 1,
      });
    } finally {
      await t.db.$executeRawUnsafe('DROP TRIGGER refuse_marked_event ON outbox_events');
      await t.db.$executeRawUnsafe('DROP FUNCTION refuse_marked_event()');
    }
  });

  it('refuses the empty topic where topics are required', async () => {
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { topicsPolicy: 3, mandatoryTopics: true },
    });
    try {
      const res = await send(alice, {
        type: 'stream',
        to: 'design',
        topic: '(no topic)',
        content: 'x',
      });
      expect(res.body).toMatchObject({
        code: 'BAD_REQUEST',
        msg: 'Topics are required in this organization.',
      });
    } finally {
      await t.db.realm.update({
        where: { id: org.realm.id },
        data: { topicsPolicy: 2, mandatoryTopics: false },
      });
    }
  });

  it('refuses deactivated recipients', async () => {
    const gone = await makeUser(t, org.realm);
    await t.db.user.update({ where: { id: gone.user.id }, data: { isActive: false } });
    const res = await send(alice, { type: 'direct', to: `[${gone.user.id}]`, content: 'x' });
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: `'${gone.email}' is no longer using Zulip.`,
    });
  });
});

describe('POST /messages permissions by role', () => {
  it('lets a guest post only to channels they are subscribed to', async () => {
    const res = await send(guest, { type: 'stream', to: 'design', topic: 'a', content: 'x' });
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "Not authorized to send to channel 'design'",
    });
    const own = await makeChannel(t, org.realm, { subscribers: [guest.user] });
    const ok = await send(guest, {
      type: 'stream',
      to: String(own.id),
      topic: 'a',
      content: 'x',
    });
    expect(ok.status).toBe(200);
  });

  it('lets a member post to a public channel without subscribing, not to a private one', async () => {
    const carol = await makeUser(t, org.realm);
    expect(
      (await send(carol, { type: 'stream', to: 'design', topic: 'a', content: 'x' })).status,
    ).toBe(200);
    const secret = await makeChannel(t, org.realm, { inviteOnly: true, subscribers: [alice.user] });
    const res = await send(carol, {
      type: 'stream',
      to: String(secret.id),
      topic: 'a',
      content: 'x',
    });
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: `Not authorized to send to channel '${secret.name}'`,
    });
    expect(
      (await send(alice, { type: 'stream', to: String(secret.id), topic: 'a', content: 'x' }))
        .status,
    ).toBe(200);
  });

  it('applies can_send_message_group: admins only', async () => {
    const announce = await makeChannel(t, org.realm, {
      canSend: 'role:administrators',
      subscribers: [alice.user],
    });
    const res = await send(alice, {
      type: 'stream',
      to: String(announce.id),
      topic: 'a',
      content: 'x',
    });
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'You do not have permission to post in this channel.',
    });
    expect(
      (
        await send(org.owner, {
          type: 'stream',
          to: String(announce.id),
          topic: 'a',
          content: 'x',
        })
      ).status,
    ).toBe(200);
  });

  it('refuses archived channels', async () => {
    const old = await makeChannel(t, org.realm, { subscribers: [alice.user] });
    await t.db.stream.update({ where: { id: old.id }, data: { isArchived: true } });
    const res = await send(alice, {
      type: 'stream',
      to: String(old.id),
      topic: 'a',
      content: 'x',
    });
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: `Not authorized to send to channel '${old.name}'`,
    });
  });
});

describe('POST /messages direct', () => {
  it('shares one recipient between both directions of a 1:1 conversation', async () => {
    const a = await send(alice, { type: 'direct', to: `[${bob.user.id}]`, content: 'hi' });
    const b = await send(bob, { type: 'private', to: alice.email, content: 'hey' });
    const [ma, mb] = await Promise.all(
      [a.body.id, b.body.id].map((id: number) => t.db.message.findUniqueOrThrow({ where: { id } })),
    );
    expect(ma.recipientId).toBe(mb.recipientId);
    const ums = await userMessages(a.body.id);
    expect(ums.map((u) => u.userId).sort()).toEqual([alice.user.id, bob.user.id].sort());
    expect(ums.every((u) => (u.flags & 256n) === 256n)).toBe(true);
  });

  it('uses the personal recipient for a message to oneself and a group for three', async () => {
    const self = await send(alice, {
      type: 'direct',
      to: `[${alice.user.id}]`,
      content: 'note',
    });
    const m = await t.db.message.findUniqueOrThrow({ where: { id: self.body.id } });
    expect(m.recipientId).toBe(alice.user.recipientId);
    const group = await send(alice, {
      type: 'direct',
      to: JSON.stringify([bob.email, guest.email]),
      content: 'all of us',
    });
    expect(group.status).toBe(200);
    expect((await userMessages(group.body.id)).length).toBe(3);
  });

  it("emits one message event with each recipient's flags, and local_id for the sender", async () => {
    const res = await send(alice, {
      type: 'direct',
      to: `[${bob.user.id}]`,
      content: '@**Bob Member** ping',
      local_id: '7.01',
      queue_id: 'q1',
    });
    const [row] = await t.db.outboxEvent.findMany({ orderBy: { id: 'desc' }, take: 1 });
    expect([...(row.usersJson as number[])].sort()).toEqual([alice.user.id, bob.user.id].sort());
    const event = row.eventJson as unknown as DomainEvent;
    const delivered = (id: string, userId: number) =>
      eventsForQueue(queueSettings({ id, userId, realmId: org.realm.id }), event, {
        isRecipient: true,
        emailOf: () => undefined,
      });
    const [forBob] = delivered('q2', bob.user.id);
    const [forAlice] = delivered('q1', alice.user.id);
    const [forAlicesOtherQueue] = delivered('q3', alice.user.id);
    expect(forBob).toMatchObject({ type: 'message', flags: ['mentioned'] });
    expect(forBob).toMatchObject({ message: { id: res.body.id } });
    expect(forBob).not.toHaveProperty('local_message_id');
    expect(forAlice).toMatchObject({ local_message_id: '7.01', flags: [] });
    expect(forAlicesOtherQueue).not.toHaveProperty('local_message_id');
  });
});

describe('POST /messages mention permissions', () => {
  it('expands group mentions and enforces can_mention_group', async () => {
    const groups = await systemGroupIds(t.db, org.realm.id);
    const group = await t.db.userGroup.create({
      data: {
        realmId: org.realm.id,
        name: 'support',
        canMentionGroupId: groups['role:administrators'],
        members: { create: [{ userId: bob.user.id }] },
      },
    });
    const refused = await send(alice, {
      type: 'stream',
      to: 'design',
      topic: 'g',
      content: '@*support* help',
    });
    expect(refused.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "You are not allowed to mention user group 'support'.",
    });
    const ok = await send(org.owner, {
      type: 'stream',
      to: 'design',
      topic: 'g',
      content: '@*support* help',
    });
    expect(ok.status).toBe(200);
    const bobCopy = (await userMessages(ok.body.id)).find((u) => u.userId === bob.user.id);
    expect(bobCopy?.flags).toBe(8n);
    expect(group.id).toBeGreaterThan(0);
  });

  it('requires can_mention_many_users_group for wildcards in channels over 15 subscribers', async () => {
    const many = await Promise.all(Array.from({ length: 15 }, () => makeUser(t, org.realm)));
    const big = await makeChannel(t, org.realm, {
      subscribers: [alice.user, ...many.map((u) => u.user)],
    });
    const refused = await send(alice, {
      type: 'stream',
      to: String(big.id),
      topic: 'w',
      content: '@**all** hello',
    });
    expect(refused.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'You do not have permission to use channel wildcard mentions in this channel.',
    });
    const ok = await send(org.owner, {
      type: 'stream',
      to: String(big.id),
      topic: 'w',
      content: '@**all** hello',
    });
    expect(ok.status).toBe(200);
  });
});
