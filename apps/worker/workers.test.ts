import { Queue } from 'bullmq';
import type { Realm, Stream } from '../../generated/prisma/client';
import { sendMessage } from '../../libs/domain/messages/send-message';
import { bullPrefix, JobName, OUTGOING_WEBHOOK_MAX_RETRIES, QueueName } from '../../libs/jobs';
import type { TestUser } from '../../test/factories';
import type { TestContext } from '../../test/harness';
import { makeChannel } from '../../test/channel-factories';
import {
  makeOutgoingBot,
  spawnWorkerProcess,
  startHttpReceiver,
  stopWorkerProcess,
  waitFor,
  type HttpReceiver,
} from '../../test/worker-factories';
import { jobHandlers } from './handlers';
import { checkHandlers, handler, startWorkers, type RunningWorkers } from './start-workers';
import { type Organization, organization } from '../../test/organization';

let t: TestContext;
let org: Organization;
let realm: Realm;
let alice: TestUser;
let receiver: HttpReceiver;

beforeAll(async () => {
  // Bots' servers are loopback receivers, which the egress policy denies unless allowed.
  org = await organization({
    env: { OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
    members: { alice: { fullName: 'Alice Worker' } },
  });
  ({ t, realm } = org);
  ({ alice } = org.users);
  receiver = await startHttpReceiver();
});
afterAll(async () => {
  await receiver.close();
  await org.close();
});

describe('the job catalogue and its handlers', () => {
  it('has exactly one handler per job', () => {
    expect([...checkHandlers(jobHandlers).keys()].sort()).toEqual(Object.values(JobName).sort());
  });

  it('refuses to start with a job without a handler, or with two', () => {
    const noop = async () => undefined;
    expect(() => startWorkers(t, jobHandlers.slice(1))).toThrow(
      `Refusing to start workers: no handler for job "${JobName.SEND_EMAIL}"`,
    );
    expect(() => startWorkers(t, [...jobHandlers, handler(JobName.SEND_EMAIL, noop)])).toThrow(
      `two handlers for job "${JobName.SEND_EMAIL}"`,
    );
  });
});

describe('the daily deletion of unclaimed uploads', () => {
  it('each worker start upserts one fixed schedule, whose first run deletes old unclaimed uploads', async () => {
    const stale = await t.db.attachment.create({
      data: {
        realmId: realm.id,
        ownerId: alice.user.id,
        pathId: `${realm.id}/stale/old.txt`,
        fileName: 'old.txt',
        size: 3,
        createTime: new Date(Date.now() - 30 * 24 * 60 * 60 * 1000),
      },
    });
    // Two replicas booting side by side.
    const first = startWorkers(t, jobHandlers);
    const second = startWorkers(t, jobHandlers);
    const queue = new Queue(QueueName.MAINTENANCE, {
      connection: t.redis,
      prefix: bullPrefix(t.config.redisPrefix, QueueName.MAINTENANCE),
    });
    try {
      await Promise.all([first.scheduled, second.scheduled]);
      // One schedule per repeating job of the queue, however many workers upserted it.
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers.map((s) => s.key).sort()).toEqual([
        'daily-delete-unclaimed-attachments',
        'hourly-archive-expired-messages',
      ]);
      expect(schedulers).toContainEqual(
        expect.objectContaining({
          key: 'daily-delete-unclaimed-attachments',
          name: JobName.DELETE_UNCLAIMED_ATTACHMENTS,
          every: 24 * 60 * 60 * 1000,
        }),
      );
      await waitFor(async () => !(await t.db.attachment.findUnique({ where: { id: stale.id } })));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

async function mentionBot(channel: Stream, botName: string) {
  return sendMessage(t, {
    sender: alice.user,
    realm,
    type: 'stream',
    to: channel.id,
    topic: 'workers',
    content: `@**${botName}** run`,
    clientName: 'website',
  });
}

describe('outgoing webhooks through real workers', () => {
  let workers: RunningWorkers | null = null;
  afterEach(async () => {
    await workers?.close();
    workers = null;
  });

  it('a sent message enqueues the job; a worker calls the bot and posts its reply', async () => {
    const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl: receiver.url });
    const channel = await makeChannel(t, realm, { subscribers: [alice.user, bot] });
    receiver.reply = { status: 200, body: JSON.stringify({ content: 'worker reply' }) };
    workers = startWorkers(t, jobHandlers);
    await mentionBot(channel, bot.fullName);
    const reply = await waitFor(() => t.db.message.findFirst({ where: { senderId: bot.id } }));
    expect(reply).toMatchObject({ content: 'worker reply', subject: 'workers' });
  });

  it('a bot mentioned in a channel it is not subscribed to is called too, and replies there', async () => {
    const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl: receiver.url });
    const channel = await makeChannel(t, realm, { subscribers: [alice.user] });
    receiver.reply = { status: 200, body: JSON.stringify({ content: 'heard you' }) };
    workers = startWorkers(t, jobHandlers);
    const sent = await mentionBot(channel, bot.fullName);
    const reply = await waitFor(() => t.db.message.findFirst({ where: { senderId: bot.id } }));
    expect(reply).toMatchObject({ content: 'heard you', recipientId: channel.recipientId });
    const calls = receiver.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(calls.find((c) => (c.message as { id: number }).id === sent.id)).toMatchObject({
      trigger: 'mention',
      bot_email: bot.email,
    });
  });

  it('an unreachable bot is tried 1 + MAX_REQUEST_RETRIES times with backoff, then reported', async () => {
    const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl: receiver.url });
    const channel = await makeChannel(t, realm, { subscribers: [alice.user, bot] });
    const before = receiver.requests.length;
    const seenAt: number[] = [];
    receiver.reply = () => {
      seenAt.push(Date.now());
      return { hangUp: true };
    };
    workers = startWorkers(t, jobHandlers);
    const sent = await mentionBot(channel, bot.fullName);
    const failure = await waitFor(
      () => t.db.message.findFirst({ where: { senderId: bot.id, isChannelMessage: true } }),
      30000,
    );
    expect(failure).toMatchObject({ content: 'Failure! Bot is unavailable', subject: 'workers' });
    expect(receiver.requests.length - before).toBe(1 + OUTGOING_WEBHOOK_MAX_RETRIES);
    // Exponential backoff from 1 s: the gaps grow (about 1, 2 and 4 seconds).
    const gaps = seenAt.slice(1).map((at, i) => at - seenAt[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(900);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThan(gaps[1]);
    const notice = await waitFor(() =>
      t.db.message.findFirst({ where: { senderId: bot.id, isChannelMessage: false } }),
    );
    expect(notice.content).toBe(
      `[A message](http://${org.host}/#narrow/channel/${channel.id}-${channel.name}/topic/workers/near/${sent.id}) to your bot @_**${bot.fullName}** triggered an outgoing webhook.\nA connection error occurred. Is my bot server down?`,
    );
  }, 60000);

  it('graceful close finishes the job in flight', async () => {
    const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl: receiver.url });
    const channel = await makeChannel(t, realm, { subscribers: [alice.user, bot] });
    const before = receiver.requests.length;
    receiver.reply = { status: 200, body: JSON.stringify({ content: 'finished' }), delayMs: 800 };
    workers = startWorkers(t, jobHandlers);
    await mentionBot(channel, bot.fullName);
    await waitFor(async () => receiver.requests.length > before);
    await workers.close();
    workers = null;
    expect(await t.db.message.findFirst({ where: { senderId: bot.id } })).toMatchObject({
      content: 'finished',
    });
  });

  it('a worker killed with SIGKILL mid-job leaves the job to another worker; one reply', async () => {
    const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl: receiver.url });
    const channel = await makeChannel(t, realm, { subscribers: [alice.user, bot] });
    const child = await spawnWorkerProcess(t, { lockMs: 1000 });
    try {
      const before = receiver.requests.length;
      let calls = 0;
      // The first call hangs (the child is killed while waiting); later calls answer at once.
      receiver.reply = () =>
        ++calls === 1
          ? { status: 200, body: JSON.stringify({ content: 'late' }), delayMs: 8000 }
          : { status: 200, body: JSON.stringify({ content: 'recovered' }) };
      await mentionBot(channel, bot.fullName);
      await waitFor(async () => receiver.requests.length > before, 20000);
      await stopWorkerProcess(child, 'SIGKILL');
      workers = startWorkers(t, jobHandlers, { lockDurationMs: 1000, stalledIntervalMs: 300 });
      const reply = await waitFor(
        () => t.db.message.findFirst({ where: { senderId: bot.id } }),
        30000,
      );
      expect(reply.content).toBe('recovered');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await t.db.message.count({ where: { senderId: bot.id } })).toBe(1);
    } finally {
      await stopWorkerProcess(child, 'SIGKILL');
    }
  }, 60000);
});
