import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { AppContext } from '../core/context';
import { logFailure } from '../stores/failures';
import { QueueName, type QueueNameValue } from './job-catalogue';
import { jobQueue, jobsConnection, sharedBullPrefix } from './queues';

/** What `moveJobsToQueueSlots` did, per queue. */
export interface QueueMove {
  /** Jobs now in the queue's own slot. */
  moved: number;
  /** Runs of a repeating job, dropped: the worker re-creates its schedules at boot. */
  scheduledRunsDropped: number;
  schedulersRemoved: number;
  /** Jobs a worker still holds the lock of, left where they are: run the command again. */
  locked: number;
}

/** The states of a job not yet done; `active` ones are moved once no worker holds them. */
const PENDING = ['waiting', 'delayed', 'prioritized', 'waiting-children', 'active'] as const;

/** An auto-increment ID: given again in the new queue it could later meet that queue's own. */
const autoId = (id: string | undefined) => id === undefined || /^\d+$/.test(id);

/**
 * Upgrade: moves the jobs left under the prefix every queue shared (one hash tag, so one Redis
 * Cluster shard for all queues) to each queue's own prefix (`bullPrefix`), keeping each job's
 * name, data, options, stable ID and remaining delay; a job's earlier attempts are not carried.
 * The old schedules are removed (the worker upserts them under the new prefix when it starts).
 * Every worker runs it at start and every few minutes (`release-steps.ts`); a job a worker of
 * the old release holds is left to it. It may be run again, and moves what it left.
 */
export async function moveJobsToQueueSlots(
  ctx: AppContext,
): Promise<Record<QueueNameValue, QueueMove>> {
  const prefix = sharedBullPrefix(ctx.config.redisPrefix);
  const report = {} as Record<QueueNameValue, QueueMove>;
  for (const name of Object.values(QueueName)) {
    const old = new Queue(name, { connection: jobsConnection(ctx), prefix });
    old.on('error', (err) => logFailure(ctx.log, 'cli', 'old job queue error', err));
    // Closed after: the workers run this every few minutes, and an open Queue keeps its
    // listeners on the shared connection.
    try {
      report[name] = await moveQueue(ctx, old, prefix, name);
    } finally {
      await old.close();
    }
  }
  return report;
}

async function moveQueue(
  ctx: AppContext,
  old: Queue,
  prefix: string,
  name: QueueNameValue,
): Promise<QueueMove> {
  const move: QueueMove = { moved: 0, scheduledRunsDropped: 0, schedulersRemoved: 0, locked: 0 };
  for (const scheduler of await old.getJobSchedulers()) {
    if (await old.removeJobScheduler(scheduler.key)) move.schedulersRemoved++;
  }
  const target = jobQueue(ctx, name);
  for (const job of await old.getJobs([...PENDING])) {
    if (!job?.id) continue;
    if ((await ctx.redis.exists(`${prefix}:${name}:${job.id}:lock`)) === 1) {
      move.locked++;
      continue;
    }
    if (job.repeatJobKey) {
      await job.remove();
      move.scheduledRunsDropped++;
      continue;
    }
    await target.add(job.name, job.data, carriedOptions(job));
    await job.remove();
    move.moved++;
  }
  return move;
}

/** The options a moved job is added with: its own, with the delay still to run. */
function carriedOptions(job: Job): JobsOptions {
  const {
    jobId: _jobId,
    delay: _delay,
    timestamp: _timestamp,
    ...options
  } = job.opts as JobsOptions & { timestamp?: number };
  const remaining = job.timestamp + (job.delay ?? 0) - Date.now();
  return {
    ...options,
    ...(autoId(job.id) ? {} : { jobId: job.id }),
    ...(remaining > 0 ? { delay: remaining } : {}),
  };
}
