import { Queue } from 'bullmq';
import { isCluster } from '../redis/connect';
import { keySlot } from '../redis/key-slot';
import { startTestContext, type TestContext } from '../../test/harness';
import { moveJobsToQueueSlots } from './move-to-queue-slots';
import { QueueName, type QueueNameValue } from './job-catalogue';
import { bullPrefix, jobQueue, sharedBullPrefix } from './queues';

/**
 * Issue 23, point 6: each BullMQ queue has a hash tag of its own, so that on Redis Cluster the
 * queues spread over the shards, and the upgrade command moves the jobs left under the shared
 * prefix. Runs on the CI's cluster too (TEST_REDIS_CLUSTER_NODES).
 */
let t: TestContext;
const oldQueues: Queue[] = [];

beforeAll(async () => {
  t = await startTestContext();
});
afterAll(async () => {
  await Promise.all(oldQueues.map((q) => q.close()));
  await t.close();
});

const oldQueue = (name: QueueNameValue) => {
  const queue = new Queue(name, {
    connection: t.redis,
    prefix: sharedBullPrefix(t.config.redisPrefix),
  });
  oldQueues.push(queue);
  return queue;
};

describe('queue keys', () => {
  it('have one hash tag per queue, all of a queue in one slot', async () => {
    const tags = Object.values(QueueName).map((name) => bullPrefix(t.config.redisPrefix, name));
    expect(new Set(tags).size).toBe(tags.length);
    for (const name of Object.values(QueueName)) {
      await jobQueue(t, name).add('probe', {}, { delay: 60_000 });
      const prefix = bullPrefix(t.config.redisPrefix, name);
      const keys = await keysOf(`${prefix}:${name}:*`);
      expect(keys.length).toBeGreaterThan(1);
      expect(new Set(keys.map(keySlot))).toEqual(new Set([keySlot(prefix)]));
      await jobQueue(t, name).obliterate({ force: true });
    }
  });

  it('spread over the masters of a cluster with the default prefix', async () => {
    if (!isCluster(t.redis)) return;
    const ranges = await t.redis.cluster('SLOTS');
    const masterOf = (slot: number) => {
      const range = ranges.find(([from, to]) => slot >= from && slot <= to)!;
      return `${range[2][0]}:${range[2][1]}`;
    };
    const masters = new Set(
      Object.values(QueueName).map((name) => masterOf(keySlot(bullPrefix('chat:', name)))),
    );
    expect(masters.size).toBeGreaterThan(1);
  });
});

describe('move-jobs-to-queue-slots', () => {
  it('moves pending jobs and drops the old schedules; a second run finds nothing', async () => {
    const emails = oldQueue(QueueName.EMAIL);
    await emails.add('send-email', { to: 'a@example.com' }, { jobId: 'welcome-1', attempts: 5 });
    await emails.add('send-email', { to: 'b@example.com' });
    await oldQueue(QueueName.SCHEDULED_MESSAGES).add(
      'deliver-scheduled-message',
      { scheduledMessageId: 7 },
      { jobId: 'scheduled-message-7', delay: 120_000 },
    );
    await oldQueue(QueueName.MAINTENANCE).upsertJobScheduler(
      'daily-delete-unclaimed-attachments',
      { every: 24 * 60 * 60 * 1000 },
      { name: 'delete-unclaimed-attachments', data: {} },
    );

    const report = await moveJobsToQueueSlots(t);
    expect(report[QueueName.EMAIL]).toEqual({
      moved: 2,
      scheduledRunsDropped: 0,
      schedulersRemoved: 0,
      locked: 0,
    });
    expect(report[QueueName.SCHEDULED_MESSAGES].moved).toBe(1);
    expect(report[QueueName.MAINTENANCE]).toMatchObject({ moved: 0, schedulersRemoved: 1 });

    const moved = await jobQueue(t, QueueName.EMAIL).getJobs(['waiting']);
    expect(moved.map((j) => j.data.to).sort()).toEqual(['a@example.com', 'b@example.com']);
    const welcome = moved.find((j) => j.data.to === 'a@example.com')!;
    expect(welcome.id).toBe('welcome-1');
    expect(welcome.opts.attempts).toBe(5);
    const [delayed] = await jobQueue(t, QueueName.SCHEDULED_MESSAGES).getJobs(['delayed']);
    expect(delayed.id).toBe('scheduled-message-7');
    expect(delayed.name).toBe('deliver-scheduled-message');
    expect(delayed.timestamp + delayed.delay - Date.now()).toBeGreaterThan(100_000);

    for (const name of Object.values(QueueName)) {
      const counts = await oldQueue(name).getJobCounts();
      expect(Object.values(counts).every((n) => n === 0)).toBe(true);
      expect(await oldQueue(name).getJobSchedulers()).toEqual([]);
    }
    const again = await moveJobsToQueueSlots(t);
    expect(Object.values(again).every((q) => q.moved === 0 && q.schedulersRemoved === 0)).toBe(
      true,
    );
  });
});

/** Keys matching `pattern`: KEYS on one Redis, on each master of a cluster. */
async function keysOf(pattern: string): Promise<string[]> {
  if (!isCluster(t.redis)) return t.redis.keys(pattern);
  const perNode = await Promise.all(t.redis.nodes('master').map((node) => node.keys(pattern)));
  return perNode.flat();
}
