import type { AppContext } from '../core/context';
import {
  jobCatalogue,
  validatePayload,
  type JobDefinition,
  type JobNameValue,
  type JobPayloads,
  type QueueNameValue,
} from './job-catalogue';
import { jobQueue } from './queues';

export interface EnqueueOptions {
  /** Stable ID: enqueuing the same ID twice keeps one job. */
  jobId?: string;
  /** Milliseconds to wait before the job may run. */
  delay?: number;
}

/** Validates the payload and adds the job with its catalogue options. */
export async function enqueueJob<N extends JobNameValue>(
  ctx: AppContext,
  name: N,
  payload: JobPayloads[N],
  options: EnqueueOptions = {},
): Promise<void> {
  const def = jobCatalogue[name];
  const data = validatePayload(name, payload);
  await jobQueue(ctx, def.queue).add(name, data, {
    ...def.options,
    ...(options.jobId !== undefined ? { jobId: options.jobId } : {}),
    ...(options.delay !== undefined ? { delay: Math.max(0, options.delay) } : {}),
  });
}

/** A job as the relay hands it over: its stable ID and when it may run. */
export interface JobHandOver {
  name: JobNameValue;
  data: unknown;
  jobId: string;
  runAt: Date;
}

/**
 * Adds jobs with their catalogue options, one round trip per queue. A job whose ID BullMQ still
 * holds (waiting, delayed, running or kept after completion) is left as it is.
 */
export async function handOverJobs(ctx: AppContext, jobs: JobHandOver[]): Promise<void> {
  const byQueue = new Map<QueueNameValue, JobHandOver[]>();
  for (const job of jobs) {
    const queue = jobCatalogue[job.name].queue;
    byQueue.set(queue, [...(byQueue.get(queue) ?? []), job]);
  }
  const now = Date.now();
  await Promise.all(
    [...byQueue].map(([queue, list]) =>
      jobQueue(ctx, queue).addBulk(
        list.map((job) => ({
          name: job.name,
          data: job.data,
          opts: {
            ...jobCatalogue[job.name].options,
            jobId: job.jobId,
            delay: Math.max(0, job.runAt.getTime() - now),
          },
        })),
      ),
    ),
  );
}

/**
 * Removes a waiting or delayed job. A job already running cannot be removed; its handler must
 * then notice from the database that there is nothing to do. Returns whether a job was removed.
 */
export async function removeJob(
  ctx: AppContext,
  name: JobNameValue,
  jobId: string,
): Promise<boolean> {
  const queue = jobQueue(ctx, jobCatalogue[name].queue);
  const job = await queue.getJob(jobId);
  if (!job) return false;
  try {
    await job.remove();
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates or updates the schedule of every repeating job of the catalogue. Each has a fixed
 * scheduler ID, so every worker replica upserting at boot still leaves one schedule. With
 * `every`, BullMQ also runs the job once right away. Returns the scheduler IDs.
 */
export async function upsertJobSchedulers(ctx: AppContext): Promise<string[]> {
  const ids: string[] = [];
  for (const [name, def] of Object.entries(jobCatalogue) as [JobNameValue, JobDefinition][]) {
    if (!def.repeat) continue;
    await jobQueue(ctx, def.queue).upsertJobScheduler(
      def.repeat.schedulerId,
      { every: def.repeat.everyMs },
      { name, data: validatePayload(name, def.repeat.payload), opts: def.options },
    );
    ids.push(def.repeat.schedulerId);
  }
  return ids;
}
