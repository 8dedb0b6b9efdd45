import type { AppContext } from '../core/context';
import {
  jobCatalogue,
  validatePayload,
  type JobDefinition,
  type JobNameValue,
  type JobPayloads,
} from './catalogue';
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

/** Moves a delayed job to a new time, or adds it when it is gone (e.g. already completed and removed). */
export async function rescheduleJob<N extends JobNameValue>(
  ctx: AppContext,
  name: N,
  payload: JobPayloads[N],
  jobId: string,
  delay: number,
): Promise<void> {
  await removeJob(ctx, name, jobId);
  await enqueueJob(ctx, name, payload, { jobId, delay });
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
