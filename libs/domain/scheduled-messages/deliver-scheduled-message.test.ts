import type { Realm, Stream } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { createDb } from '../../db/client';
import { closeSqlPool } from '../../db/sql';
import { makeRealm, makeUser, type TestUser } from '../../../test/factories';
import {
  poll,
  startTestEvents,
  type EventBody,
  type Registered,
  type TestEvents,
} from '../../../test/events-factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { spawnWorkerProcess, stopWorkerProcess } from '../../../test/worker-factories';
import { deliverScheduledMessage } from './deliver-scheduled-message';
import { writeDelivery } from './schedule-delivery';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let realm: Realm;
let alice: TestUser;
let channel: Stream;

beforeAll(async () => {
  org = await organization({
    env: { HEARTBEAT_SECONDS: '5' },
    members: { alice: { fullName: 'Alice Scheduler' } },
    channels: { channel: ['alice'] },
  });
  ({ t, realm } = org);
  ({ alice } = org.users);
  ({ channel } = org.channels);
});
afterAll(() => org.close());

/** Whole seconds, as scheduled_delivery_timestamp has them. */
const wholeSecond = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);

async function schedule(
  options: {
    at?: Date;
    to?: Stream;
    sender?: TestUser;
    content?: string;
    readBySender?: boolean | null;
  } = {},
) {
  const content = options.content ?? `later ${Math.random()}`;
  return t.db.scheduledMessage.create({
    data: {
      realmId: (options.sender ?? alice).user.realmId,
      senderId: (options.sender ?? alice).user.id,
      recipientId: (options.to ?? channel).recipientId!,
      subject: 'plans',
      content,
      renderedContent: `<p>${content}</p>`,
      scheduledTimestamp: options.at ?? wholeSecond(Date.now()),
      sendingClientName: 'website',
      readBySender: options.readBySender ?? false,
    },
  });
}

const deliver = (id: number, isLastAttempt = false) =>
  deliverScheduledMessage(t, { scheduledMessageId: id }, { isLastAttempt });

/** Direct messages from the notification bot to `user`, oldest first. */
const noticesTo = (user: TestUser) =>
  t.db.message.findMany({
    where: {
      sender: { fullName: 'Notification Bot', isBot: true },
      isChannelMessage: false,
      userMessages: { some: { userId: user.user.id } },
    },
    orderBy: { id: 'asc' },
  });

/** Zulip's notice, spelled out: `<time:...>` holds Python's str() of the UTC datetime. */
const expectedNotice = (at: Date, reason: string) =>
  `The message you scheduled for <time:${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 19)}+00:00>  was not sent because of the following error:\n\n> ${reason}\n\n[View scheduled messages](#scheduled)`;

describe('deliverScheduledMessage', () => {
  it('sends as the sender, marks delivered, emits the remove event; a second run sends nothing', async () => {
    const sm = await schedule();
    const mark = await outboxMark(t);
    await Promise.all([deliver(sm.id), deliver(sm.id)]);
    await deliver(sm.id);
    const messages = await t.db.message.findMany({ where: { content: sm.content } });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ senderId: alice.user.id, subject: 'plans' });
    const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
    expect(after).toMatchObject({
      delivered: true,
      deliveredMessageId: messages[0].id,
      failed: false,
    });
    // read_by_sender=false honoured: the sender's copy is unread.
    const um = await t.db.userMessage.findFirstOrThrow({
      where: { messageId: messages[0].id, userId: alice.user.id },
    });
    expect(Number(um.flags) & 1).toBe(0);
    const scheduledEvents = (await eventsAfter(t, mark)).filter(
      (e) => e.event.type === 'scheduled_messages',
    );
    expect(scheduledEvents).toEqual([
      {
        event: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: sm.id },
        users: [alice.user.id],
      },
    ]);
  });

  it('read_by_sender=true delivers the sender’s copy as read', async () => {
    const sm = await schedule({ readBySender: true });
    await deliver(sm.id);
    const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
    const um = await t.db.userMessage.findFirstOrThrow({
      where: { messageId: after.deliveredMessageId!, userId: alice.user.id },
    });
    expect(Number(um.flags) & 1).toBe(1);
  });

  it('a deleted scheduled message finishes quietly', async () => {
    await expect(deliver(987654)).resolves.toBeUndefined();
  });

  it('needs one database connection: a worker runs as many deliveries as its pool holds', async () => {
    const one: AppContext = {
      ...t,
      db: createDb(t.config.databaseUrl, { maxConnections: 1 }),
      config: { ...t.config, databasePoolSize: 1 },
    };
    try {
      const sm = await schedule();
      // Reads outside the delivery's transaction waited for the connection it holds, until
      // the transaction timed out (30 s).
      await deliverScheduledMessage(one, { scheduledMessageId: sm.id }, { isLastAttempt: true });
      const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
      expect(after).toMatchObject({ delivered: true, failed: false });
    } finally {
      await one.db.$disconnect();
      await closeSqlPool(one);
    }
  }, 10_000);
});

describe('a delivery that fails is marked failed, and the sender is told as Zulip does', () => {
  /** Delivers, then checks the failed row, the notice and the update event. */
  async function expectFailedAndTold(
    sm: Awaited<ReturnType<typeof schedule>>,
    to: Stream,
    reason: string,
    isLastAttempt = false,
  ) {
    const noticesBefore = (await noticesTo(alice)).length;
    const mark = await outboxMark(t);
    await deliver(sm.id, isLastAttempt);
    const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
    expect(after).toMatchObject({ failed: true, delivered: false, failureMessage: reason });
    expect(await t.db.message.count({ where: { content: sm.content } })).toBe(0);
    const notices = (await noticesTo(alice)).slice(noticesBefore);
    expect(notices.map((n) => n.content)).toEqual([expectedNotice(sm.scheduledTimestamp, reason)]);
    const updates = (await eventsAfter(t, mark)).filter(
      (e) => e.event.type === 'scheduled_messages',
    );
    expect(updates).toEqual([
      {
        event: {
          type: 'scheduled_messages',
          op: 'update',
          scheduled_message: {
            scheduled_message_id: sm.id,
            type: 'stream',
            to: to.id,
            topic: 'plans',
            content: sm.content,
            rendered_content: sm.renderedContent,
            scheduled_delivery_timestamp: sm.scheduledTimestamp.getTime() / 1000,
            failed: true,
          },
        },
        users: [alice.user.id],
      },
    ]);
    // A later run (a retried or duplicate job) changes nothing and tells nobody again.
    await deliver(sm.id);
    expect((await noticesTo(alice)).length).toBe(noticesBefore + 1);
  }

  it('the channel was archived', async () => {
    const archived = await makeChannel(t, realm, { subscribers: [alice.user] });
    const sm = await schedule({ to: archived });
    await t.db.stream.update({ where: { id: archived.id }, data: { isArchived: true } });
    await expectFailedAndTold(sm, archived, `Not authorized to send to channel '${archived.name}'`);
  });

  it('the sender lost permission to post in the channel', async () => {
    const announce = await makeChannel(t, realm, { subscribers: [alice.user] });
    const sm = await schedule({ to: announce });
    const admins = await t.db.userGroup.findFirstOrThrow({
      where: { realmId: realm.id, isSystemGroup: true, name: 'role:administrators' },
    });
    await t.db.stream.update({
      where: { id: announce.id },
      data: { canSendMessageGroupId: admins.id },
    });
    await expectFailedAndTold(sm, announce, 'You do not have permission to post in this channel.');
  });

  it('it is more than 10 minutes late', async () => {
    const sm = await schedule({ at: new Date('2020-01-02T03:04:05Z') });
    await expectFailedAndTold(sm, channel, 'Message could not be sent at the scheduled time.');
    expect((await noticesTo(alice)).at(-1)?.content).toBe(
      'The message you scheduled for <time:2020-01-02 03:04:05+00:00>  was not sent because of the following error:\n\n> Message could not be sent at the scheduled time.\n\n[View scheduled messages](#scheduled)',
    );
  });

  it('an unexpected error is retried, and after the last attempt is an "Internal server error"', async () => {
    // A constraint in this file's own database makes the message insert itself fail.
    await t.db.$executeRawUnsafe(
      `ALTER TABLE messages ADD CONSTRAINT test_refuse CHECK (content <> 'explodes on insert')`,
    );
    try {
      const sm = await schedule({ content: 'explodes on insert' });
      await expect(deliver(sm.id)).rejects.toThrow();
      expect(await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } })).toMatchObject(
        { failed: false, delivered: false },
      );
      await expectFailedAndTold(sm, channel, 'Internal server error', true);
    } finally {
      await t.db.$executeRawUnsafe('ALTER TABLE messages DROP CONSTRAINT test_refuse');
    }
  });

  it('a deactivated sender: failed, and no notice or event (as in Zulip)', async () => {
    const bob = await makeUser(t, realm);
    const sm = await schedule({ sender: bob });
    await t.db.user.update({ where: { id: bob.user.id }, data: { isActive: false } });
    const mark = await outboxMark(t);
    await deliver(sm.id);
    const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
    expect(after).toMatchObject({ failed: true, failureMessage: 'Account is deactivated' });
    expect(await t.db.message.count({ where: { content: sm.content } })).toBe(0);
    expect(await noticesTo(bob)).toEqual([]);
    expect(await eventsAfter(t, mark)).toEqual([]);
  });

  it('a deactivated organization: failed, and no notice or event', async () => {
    const other = await makeRealm(t);
    const otherChannel = await makeChannel(t, other.realm, { subscribers: [other.owner.user] });
    const sm = await schedule({ sender: other.owner, to: otherChannel });
    await t.db.realm.update({ where: { id: other.realm.id }, data: { deactivated: true } });
    const mark = await outboxMark(t);
    await deliver(sm.id);
    expect(await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } })).toMatchObject({
      failed: true,
      failureMessage: 'This organization has been deactivated',
    });
    expect(await noticesTo(other.owner)).toEqual([]);
    expect(await eventsAfter(t, mark)).toEqual([]);
  });
});

describe('end to end: two worker processes, GET /messages and event queues', () => {
  let ev: TestEvents;
  beforeAll(async () => {
    ev = await startTestEvents(t);
  });
  afterAll(() => ev.stop());

  /**
   * Long-polls a queue (acknowledging as it goes) until `done` holds for everything received,
   * then waits a moment and drains what is left, so a duplicate would be seen too.
   */
  async function receive(
    queue: Registered,
    user: TestUser,
    done: (events: EventBody[]) => boolean,
  ): Promise<EventBody[]> {
    const got: EventBody[] = [];
    let last = queue.last_event_id;
    const take = (body: { events: EventBody[] }) => {
      for (const e of body.events) {
        last = Math.max(last, e.id);
        if (e.type !== 'heartbeat') got.push(e);
      }
    };
    const deadline = Date.now() + 45000;
    while (!done(got) && Date.now() < deadline) {
      const res = await poll(ev, org.host, user.auth, {
        queue_id: queue.queue_id,
        last_event_id: last,
      });
      expect(res.status).toBe(200);
      expectOpenApiResponse('/events', 'get', res.body);
      take(res.body);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const rest = await poll(ev, org.host, user.auth, {
      queue_id: queue.queue_id,
      last_event_id: last,
      dont_block: true,
    });
    take(rest.body);
    return got;
  }

  it('delivers once, on time within a second, to the recipient’s and the sender’s queues', async () => {
    const bob = await makeUser(t, realm, { fullName: 'Bob Recipient' });
    const room = await makeChannel(t, realm, { subscribers: [alice.user, bob.user] });
    const content = `scheduled end to end ${Math.random()}`;
    // Each process first delivers one message of its own (due now), so the delivery measured
    // below finds both warm, as a worker is in steady operation.
    const warmUps = await Promise.all(
      [1, 2].map((n) => schedule({ to: room, content: `warm ${n}` })),
    );
    const children = await Promise.all(
      warmUps.map((sm) =>
        spawnWorkerProcess(t, { lockMs: 30000, warmUpScheduledMessageId: sm.id }),
      ),
    );
    const warmed = await t.db.scheduledMessage.count({
      where: { id: { in: warmUps.map((sm) => sm.id) }, delivered: true },
    });
    expect(warmed).toBe(2);
    try {
      const bobQueue = await org.register(bob, { event_types: '["message"]' });
      const aliceQueue = await org.register(alice, {
        event_types: '["message", "scheduled_messages"]',
      });
      const at = Math.floor(Date.now() / 1000) + 4;
      const res = await org.as(alice).post('/scheduled_messages', {
        type: 'stream',
        to: room.id,
        topic: 'plans',
        content,
        scheduled_delivery_timestamp: at,
      });
      expect(res.status).toBe(200);
      const smId = res.body.scheduled_message_id as number;
      // Idempotent: the same job ID keeps one job.
      await t.db.$transaction((tx) => writeDelivery(tx, smId, new Date(at * 1000)));

      const isOurs = (e: EventBody) =>
        e.type === 'message' && (e.message as { content: string }).content === content;
      const isRemove = (e: EventBody) =>
        e.type === 'scheduled_messages' && e.op === 'remove' && e.scheduled_message_id === smId;

      const bobEvents = await receive(bobQueue, bob, (got) => got.some(isOurs));
      const aliceEvents = await receive(
        aliceQueue,
        alice,
        (got) => got.some(isOurs) && got.some(isRemove),
      );
      expect(bobEvents.filter(isOurs)).toHaveLength(1);
      expect(aliceEvents.filter(isOurs)).toHaveLength(1);
      expect(aliceEvents.filter(isRemove)).toHaveLength(1);

      const event = bobEvents.find(isOurs)!.message as { id: number; timestamp: number };
      const message = await t.db.message.findUniqueOrThrow({ where: { id: event.id } });
      expect(message).toMatchObject({ senderId: alice.user.id, recipientId: room.recipientId });
      expect(event.timestamp).toBe(Math.floor(message.dateSent.getTime() / 1000));
      const lateness = message.dateSent.getTime() - at * 1000;
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThan(1000);
      expect(aliceEvents.find(isOurs)!.message).toMatchObject({ id: message.id });

      expect(await t.db.message.count({ where: { content } })).toBe(1);
      expect(await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: smId } })).toMatchObject({
        delivered: true,
        deliveredMessageId: message.id,
      });
      const listed = await org.as(bob).get('/messages', {
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
      });
      expect(listed.body.messages.map((m: { id: number }) => m.id)).toContain(message.id);
    } finally {
      await Promise.all(children.map((child) => stopWorkerProcess(child)));
    }
  }, 90000);
});
