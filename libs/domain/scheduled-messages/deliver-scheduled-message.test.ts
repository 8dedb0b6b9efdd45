import type { Realm, Stream } from '../../../generated/prisma/client';
import { jobHandlers } from '../../../apps/worker/handlers';
import { startWorkers } from '../../../apps/worker/start-workers';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/message-factories';
import { spawnWorkerProcess, stopWorkerProcess, waitFor } from '../../../test/worker-factories';
import { deliverScheduledMessage, failureNoticeText } from './deliver-scheduled-message';
import { enqueueDelivery } from './schedule-delivery';

let t: TestContext;
let org: TestRealm;
let realm: Realm;
let alice: TestUser;
let channel: Stream;

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  realm = org.realm;
  alice = await makeUser(t, realm, { fullName: 'Alice Scheduler' });
  channel = await makeChannel(t, realm, { subscribers: [alice.user] });
});
afterAll(() => t.close());

async function schedule(at: Date, content = `later ${Math.random()}`) {
  return t.db.scheduledMessage.create({
    data: {
      realmId: realm.id,
      senderId: alice.user.id,
      recipientId: channel.recipientId!,
      subject: 'plans',
      content,
      renderedContent: `<p>${content}</p>`,
      scheduledTimestamp: at,
      sendingClientName: 'website',
      readBySender: false,
    },
  });
}

const outboxEvents = async (type: string) =>
  (await t.db.outboxEvent.findMany({ orderBy: { id: 'asc' } }))
    .map((r) => r.eventJson as Record<string, unknown>)
    .filter((e) => e.type === type);

describe('deliverScheduledMessage', () => {
  it('sends as the sender, marks delivered, emits the remove event; a second run sends nothing', async () => {
    const sm = await schedule(new Date());
    await Promise.all([
      deliverScheduledMessage(t, { scheduledMessageId: sm.id }, { isLastAttempt: false }),
      deliverScheduledMessage(t, { scheduledMessageId: sm.id }, { isLastAttempt: false }),
    ]);
    await deliverScheduledMessage(t, { scheduledMessageId: sm.id }, { isLastAttempt: false });
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
    expect(await outboxEvents('scheduled_messages')).toContainEqual({
      type: 'scheduled_messages',
      op: 'remove',
      scheduled_message_id: sm.id,
    });
  });

  it('an archived channel marks it failed with the reason and tells the sender', async () => {
    const archived = await makeChannel(t, realm, { subscribers: [alice.user] });
    const sm = await t.db.scheduledMessage.create({
      data: {
        realmId: realm.id,
        senderId: alice.user.id,
        recipientId: archived.recipientId!,
        subject: 't',
        content: 'to an archived channel',
        renderedContent: '<p>x</p>',
        scheduledTimestamp: new Date(),
      },
    });
    await t.db.stream.update({ where: { id: archived.id }, data: { isArchived: true } });
    await deliverScheduledMessage(t, { scheduledMessageId: sm.id }, { isLastAttempt: false });
    const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
    expect(after.failed).toBe(true);
    expect(after.delivered).toBe(false);
    expect(after.failureMessage).toBeTruthy();
    expect(await t.db.message.count({ where: { content: 'to an archived channel' } })).toBe(0);
    const notice = await t.db.message.findFirstOrThrow({
      where: {
        sender: { fullName: 'Notification Bot', isBot: true },
        userMessages: { some: { userId: alice.user.id } },
      },
      orderBy: { id: 'desc' },
    });
    expect(notice.content).toBe(failureNoticeText(sm.scheduledTimestamp, after.failureMessage!));
    expect(await outboxEvents('scheduled_messages')).toContainEqual({
      type: 'scheduled_messages',
      op: 'update',
      scheduled_message: { scheduled_message_id: sm.id, failed: true },
    });
  });

  it('a deactivated sender marks it failed and sends nothing', async () => {
    const bob = await makeUser(t, realm);
    const sm = await t.db.scheduledMessage.create({
      data: {
        realmId: realm.id,
        senderId: bob.user.id,
        recipientId: channel.recipientId!,
        subject: 't',
        content: 'from a deactivated sender',
        renderedContent: '<p>x</p>',
        scheduledTimestamp: new Date(),
      },
    });
    await t.db.user.update({ where: { id: bob.user.id }, data: { isActive: false } });
    await deliverScheduledMessage(t, { scheduledMessageId: sm.id }, { isLastAttempt: false });
    const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
    expect(after).toMatchObject({ failed: true, failureMessage: 'Account is deactivated' });
    expect(await t.db.message.count({ where: { content: 'from a deactivated sender' } })).toBe(0);
  });

  it('a deleted scheduled message finishes quietly', async () => {
    await expect(
      deliverScheduledMessage(t, { scheduledMessageId: 987654 }, { isLastAttempt: false }),
    ).resolves.toBeUndefined();
  });
});

describe('end to end with two workers', () => {
  it('delivers once, on time within a second, with a second worker process running', async () => {
    const child = await spawnWorkerProcess(t);
    const workers = startWorkers(t, jobHandlers);
    try {
      const at = new Date(Date.now() + 3000);
      const sm = await schedule(at, 'scheduled end to end');
      await enqueueDelivery(t, sm.id, at);
      await enqueueDelivery(t, sm.id, at); // idempotent: same job ID
      const message = await waitFor(
        () => t.db.message.findFirst({ where: { content: 'scheduled end to end' } }),
        15000,
        25,
      );
      const lateness = message.dateSent.getTime() - at.getTime();
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThan(1000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await t.db.message.count({ where: { content: 'scheduled end to end' } })).toBe(1);
      const after = await t.db.scheduledMessage.findUniqueOrThrow({ where: { id: sm.id } });
      expect(after).toMatchObject({ delivered: true, deliveredMessageId: message.id });
      const res = await (
        await import('supertest')
      )
        .default(t.app)
        .get('/api/v1/messages')
        .query({ anchor: 'newest', num_before: 5, num_after: 0 })
        .set('Host', org.host)
        .set('Authorization', alice.auth);
      expect(res.body.messages.map((m: { id: number }) => m.id)).toContain(message.id);
    } finally {
      await workers.close();
      await stopWorkerProcess(child);
    }
  }, 40000);
});
