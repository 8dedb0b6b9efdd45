import { Queue } from 'bullmq';
import { startWorkers, type RunningWorkers } from '../../apps/worker/start-workers';
import { jobHandlers } from '../../apps/worker/handlers';
import { organization, type Organization } from '../../test/organization';
import { startPrivateRedis, type PrivateRedis } from '../../test/private-redis';
import { waitFor } from '../../test/worker-factories';
import { withoutTriggers } from '../../test/without-triggers';
import type { TestContext } from '../../test/harness';
import { jobCatalogue, Jobs, QueueName } from './job-catalogue';
import { bullPrefix } from './queues';
import { writeJob } from './outbox';
import { pruneOutboxes, reconcileJobs, relayJobs, startJobRelay } from './relay';

let redis: PrivateRedis;
let org: Organization<'alice', 'room'>;
let t: TestContext;
let scheduled: Queue;

beforeAll(async () => {
  redis = await startPrivateRedis();
  org = await organization({
    env: { REDIS_URL: redis.url, REDIS_CLUSTER_NODES: '', OUTBOX_RETENTION_SECONDS: '3600' },
    members: { alice: 'member' },
    channels: { room: ['alice'] },
  });
  ({ t } = org);
  scheduled = new Queue(QueueName.SCHEDULED_MESSAGES, {
    connection: t.redis,
    prefix: bullPrefix(t.config.redisPrefix, QueueName.SCHEDULED_MESSAGES),
  });
  // While the test's Redis is down on purpose.
  scheduled.on('error', () => undefined);
});
afterAll(async () => {
  await scheduled.close();
  await org.close();
  await redis.stop();
});

let n = 0;
/** A delivery job for a scheduled message that does not exist (runs as a no-op). */
async function writeDeliveryJob(runAt = new Date(Date.now() + 3_600_000)) {
  const jobId = `relay-test-${++n}`;
  await t.db.$transaction((tx) =>
    writeJob(
      tx,
      Jobs.deliverScheduledMessage,
      { scheduledMessageId: 1_000_000 + n },
      { jobId, runAt },
    ),
  );
  return jobId;
}

const row = (jobId: string) => t.db.jobOutbox.findUniqueOrThrow({ where: { jobId } });

describe('the job relay', () => {
  it('hands a written job to BullMQ under its stable ID and delay, once however often', async () => {
    const runAt = new Date(Date.now() + 60_000);
    const jobId = await writeDeliveryJob(runAt);
    expect(await scheduled.getJob(jobId)).toBeUndefined();
    expect(await relayJobs(t)).toBeGreaterThanOrEqual(1);
    expect((await row(jobId)).publishedAt).not.toBeNull();
    const job = await scheduled.getJob(jobId);
    expect(job?.name).toBe(Jobs.deliverScheduledMessage.name);
    expect(Math.abs(job!.timestamp + job!.opts.delay! - runAt.getTime())).toBeLessThan(1000);
    expect(job!.opts.attempts).toBe(
      jobCatalogue[Jobs.deliverScheduledMessage.name].options.attempts,
    );

    // Handed over again (the marking was lost): still one job.
    const before = await scheduled.getDelayedCount();
    await t.db.jobOutbox.update({ where: { jobId }, data: { publishedAt: null } });
    await relayJobs(t);
    expect(await scheduled.getDelayedCount()).toBe(before);
  });

  it('writes without Redis, and retries until Redis is back', async () => {
    await redis.stop();
    try {
      // The deciding transaction does not touch Redis.
      const jobId = await writeDeliveryJob();
      await expect(relayJobs(t)).rejects.toThrow();
      const relay = startJobRelay(t, { intervalMs: 50, reconcileEveryMs: 60_000 });
      try {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect((await row(jobId)).publishedAt).toBeNull();
        await redis.start();
        await waitFor(async () => (await row(jobId)).publishedAt, 15_000);
        expect(await scheduled.getJob(jobId)).toBeDefined();
      } finally {
        await relay.stop();
      }
    } finally {
      await redis.start();
    }
  });

  it('hands a job over when PostgreSQL says it was written, not on a timer', async () => {
    const relay = startJobRelay(t, { intervalMs: 50, idleMs: 60_000, reconcileEveryMs: 60_000 });
    try {
      // Until it listens the relay asks every interval, and would find the unreported row.
      await waitFor(async () => relay.listening, 5_000);
      await waitFor(async () => (await writeAndAwait()) !== null, 5_000);
      // A pass that word started may still be on its way.
      await new Promise((resolve) => setTimeout(resolve, 300));
      // A row the trigger does not report waits for the next word (or the idle minute).
      const unreported = await withoutTriggers(t.db, 'job_outbox', writeDeliveryJob);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await row(unreported)).publishedAt).toBeNull();
      // A reported one comes with it.
      const reported = await writeDeliveryJob();
      await waitFor(async () => (await row(reported)).publishedAt, 2_000);
      expect((await row(unreported)).publishedAt).not.toBeNull();
    } finally {
      await relay.stop();
    }

    /** Writes a job and waits a second for it to be handed over; its publication time or null. */
    async function writeAndAwait(): Promise<Date | null> {
      const jobId = await writeDeliveryJob();
      const deadline = Date.now() + 1000;
      while (Date.now() < deadline) {
        const { publishedAt } = await row(jobId);
        if (publishedAt) return publishedAt;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return null;
    }
  });

  it('re-creates the jobs not done after Redis comes back empty, and the schedules', async () => {
    await reconcileJobs(t); // the epoch key exists from here on
    const pending = [await writeDeliveryJob(), await writeDeliveryJob()];
    const done = await writeDeliveryJob();
    await relayJobs(t);
    await t.db.jobOutbox.update({ where: { jobId: done }, data: { doneAt: new Date() } });
    expect(await reconcileJobs(t)).toBeNull(); // Redis still has its data

    await t.redis.flushall();
    expect(await scheduled.getJob(pending[0])).toBeUndefined();
    expect(await reconcileJobs(t)).toBeGreaterThanOrEqual(2);
    await relayJobs(t);
    for (const jobId of pending) expect(await scheduled.getJob(jobId)).toBeDefined();
    expect(await scheduled.getJob(done)).toBeUndefined();
    const maintenance = new Queue(QueueName.MAINTENANCE, {
      connection: t.redis,
      prefix: bullPrefix(t.config.redisPrefix, QueueName.MAINTENANCE),
    });
    expect((await maintenance.getJobSchedulers()).map((s) => s.key)).toContain(
      Jobs.deleteUnclaimedAttachments.repeat?.schedulerId,
    );
    await maintenance.close();
  });

  it('prunes published events and done jobs past the retention, and nothing else', async () => {
    const old = new Date(Date.now() - 2 * 3600_000);
    const realmId = org.realm.id;
    const event = (publishedAt: Date | null) =>
      t.db.outboxEvent.create({
        data: {
          realmId,
          eventJson: { type: 'alert_words', alert_words: [] },
          usersJson: [1],
          publishedAt,
        },
      });
    const [gone, recent, unpublished] = [
      await event(old),
      await event(new Date()),
      await event(null),
    ];
    const oldDone = await writeDeliveryJob();
    const oldPending = await writeDeliveryJob();
    await t.db.jobOutbox.update({ where: { jobId: oldDone }, data: { doneAt: old } });
    await t.db.jobOutbox.update({ where: { jobId: oldPending }, data: { createdAt: old } });

    const vacuums = async () =>
      (
        await t.db.$queryRaw<{ n: bigint }[]>`
          SELECT pg_stat_get_vacuum_count('outbox_events'::regclass) AS n FROM pg_stat_clear_snapshot()`
      )[0].n;
    const vacuumedBefore = await vacuums();
    const pruned = await pruneOutboxes(t);
    // The deleted rows' space is made reusable at once, whatever autovacuum does.
    expect(await vacuums()).toBeGreaterThan(vacuumedBefore);
    expect(pruned.events).toBeGreaterThanOrEqual(1);
    expect(pruned.jobs).toBeGreaterThanOrEqual(1);
    const ids = (await t.db.outboxEvent.findMany({ select: { id: true } })).map((e) => e.id);
    expect(ids).not.toContain(gone.id);
    expect(ids).toEqual(expect.arrayContaining([recent.id, unpublished.id]));
    expect(await t.db.jobOutbox.findUnique({ where: { jobId: oldDone } })).toBeNull();
    expect(await t.db.jobOutbox.findUnique({ where: { jobId: oldPending } })).not.toBeNull();
  });
});

describe('jobs after Redis lost its data, through the workers', () => {
  let workers: RunningWorkers;
  beforeAll(() => {
    workers = startWorkers(t, jobHandlers, {
      lockDurationMs: 5000,
      stalledIntervalMs: 5000,
      // Each delivery holds a transaction and reads through the pool too: more at once than the
      // test context's 5 connections starve the pool.
      concurrency: { [QueueName.SCHEDULED_MESSAGES]: 2 },
      relay: { intervalMs: 50, reconcileEveryMs: 500 },
    });
  });
  afterAll(() => workers.close());

  it('posts each scheduled message once when Redis restarts empty before they are due', async () => {
    const at = Math.floor(Date.now() / 1000) + 10;
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await org.as(org.users.alice).post('/scheduled_messages', {
        type: 'stream',
        to: org.channels.room.id,
        topic: 'flush',
        content: `after the flush ${i}`,
        scheduled_delivery_timestamp: at,
      });
      expect(res.status).toBe(200);
      ids.push(res.body.scheduled_message_id as number);
    }
    const handedOver = async () =>
      (await t.db.jobOutbox.count({
        where: { jobName: Jobs.deliverScheduledMessage.name, publishedAt: { not: null } },
      })) >= 5;
    await waitFor(handedOver);
    expect(await scheduled.getDelayedCount()).toBeGreaterThanOrEqual(5);
    await redis.stop();
    await redis.start(); // without persistence: empty

    await waitFor(
      async () =>
        (await t.db.scheduledMessage.count({ where: { id: { in: ids }, delivered: true } })) === 5,
      40_000,
    );
    const posted = await t.db.message.findMany({
      where: { subject: 'flush', content: { startsWith: 'after the flush' } },
    });
    expect(posted).toHaveLength(5);
    expect(new Set(posted.map((m) => m.content)).size).toBe(5);
    await waitFor(
      async () =>
        (await t.db.jobOutbox.count({
          where: {
            jobName: Jobs.deliverScheduledMessage.name,
            doneAt: null,
            jobId: { startsWith: 'sched-' },
          },
        })) === 0,
    );
  }, 90_000);
});
