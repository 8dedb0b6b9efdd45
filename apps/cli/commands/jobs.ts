import type { AppContext } from '../../../libs/core/context';
import { QueueName, type QueueNameValue } from '../../../libs/jobs/job-catalogue';
import { moveJobsToQueueSlots } from '../../../libs/jobs/move-to-queue-slots';
import { jobQueue } from '../../../libs/jobs/queues';
import { optionalFlag, parseFlags, requireFlag, UsageError } from '../args';

/**
 * `move-jobs-to-queue-slots`: the upgrade that gives each BullMQ queue its own Redis Cluster hash
 * tag moves the jobs still pending under the old shared prefix (see `moveJobsToQueueSlots`).
 */
export async function moveJobsToQueueSlotsCommand(ctx: AppContext, argv: string[]) {
  parseFlags(argv, []);
  return { queues: await moveJobsToQueueSlots(ctx) };
}

const STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
/** What `purge-queue --state` removes, in BullMQ's names: running jobs are never cut off. */
const PURGEABLE: Record<string, 'wait' | 'delayed' | 'failed' | 'completed' | 'paused'> = {
  waiting: 'wait',
  delayed: 'delayed',
  failed: 'failed',
  completed: 'completed',
  paused: 'paused',
};

function queueNamed(name: string | undefined): QueueNameValue {
  const names = Object.values(QueueName) as string[];
  if (name === undefined || !names.includes(name)) {
    throw new UsageError(`--queue must be one of ${names.join(', ')}`);
  }
  return name as QueueNameValue;
}

/**
 * `queues`: how many jobs each BullMQ queue holds in each state; with `--queue NAME`, that
 * queue's failed jobs too (the latest 20, with why they failed), as an operator inspects them.
 */
export async function queuesCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['queue']);
  const only = optionalFlag(flags, 'queue');
  const names = only === undefined ? Object.values(QueueName) : [queueNamed(only)];
  const queues: Record<string, Record<string, number>> = {};
  for (const name of names) {
    queues[name] = await jobQueue(ctx, name).getJobCounts(...STATES);
  }
  if (only === undefined) return { queues };
  const failed = await jobQueue(ctx, queueNamed(only)).getFailed(0, 19);
  return {
    queues,
    failed: failed.map((job) => ({
      id: job.id,
      name: job.name,
      attempts: job.attemptsMade,
      failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
      reason: job.failedReason,
      data: job.data as unknown,
    })),
  };
}

/**
 * `purge-queue --queue NAME --state STATE`: removes a queue's jobs in that state (Zulip's
 * `manage.py purge_queue`); running jobs stay. Removing `delayed` jobs also removes the next run
 * of each repeating job, which the workers schedule again when they start.
 */
export async function purgeQueueCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['queue', 'state']);
  const name = queueNamed(optionalFlag(flags, 'queue'));
  const state = requireFlag(flags, 'state');
  const type = PURGEABLE[state];
  if (!type) throw new UsageError(`--state must be one of ${Object.keys(PURGEABLE).join(', ')}`);
  const removed = await jobQueue(ctx, name).clean(0, 0, type);
  return { queue: name, state, removed: removed.length };
}
