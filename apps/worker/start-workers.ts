import { Worker, type Job } from 'bullmq';
import type { AppContext } from '../../libs/core/context';
import {
  jobCatalogue,
  queueLocation,
  markJobDone,
  startJobRelay,
  upsertJobSchedulers,
  type RelayOptions,
  validatePayload,
  type JobNameValue,
  type JobPayloads,
  type QueueNameValue,
} from '../../libs/jobs';
import { connectRedis, redisConnected } from '../../libs/redis/connect';
import { startWhenReachable } from '../../libs/stores/start-when-reachable';
import { startReleaseSteps } from '../../libs/jobs/release-steps';
import { logFailure } from '../../libs/stores/failures';
import { pause } from '../../libs/core/pause';

/** What a handler learns about its run besides the payload. */
export interface JobRun {
  attempt: number;
  /** True on the last allowed attempt: a failure now is final. */
  isLastAttempt: boolean;
}

export type JobHandler<N extends JobNameValue> = (
  ctx: AppContext,
  payload: JobPayloads[N],
  run: JobRun,
) => Promise<void>;

export interface HandlerEntry<N extends JobNameValue = JobNameValue> {
  name: N;
  handle: JobHandler<N>;
}

/** Keeps the payload type of each entry tied to its job name. */
export const handler = <N extends JobNameValue>(name: N, handle: JobHandler<N>): HandlerEntry =>
  ({ name, handle }) as unknown as HandlerEntry;

export interface WorkerOptions {
  /** Jobs run at once per queue. */
  concurrency?: Partial<Record<QueueNameValue, number>>;
  /** How long a job's lock lives without renewal; a killed worker's job is retried after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How long `close()` waits for the jobs in flight (and for Redis) before giving up. */
  closeGraceMs?: number;
  /** The job relay's timing (libs/jobs/relay.ts). */
  relay?: RelayOptions;
}

export interface RunningWorkers {
  /** Settles once the repeating jobs' schedules are in Redis (a failure is logged, not thrown). */
  scheduled: Promise<void>;
  /** Settles after the release's upgrade steps first ran (`libs/jobs/release-steps.ts`). */
  releaseSteps: Promise<void>;
  /** Stops taking jobs and waits for the jobs in flight to finish. */
  close(): Promise<void>;
}

/** Every job of the catalogue must have exactly one handler; anything else is a deployment bug. */
export function checkHandlers(entries: HandlerEntry[]): Map<JobNameValue, HandlerEntry> {
  const byName = new Map<JobNameValue, HandlerEntry>();
  const problems: string[] = [];
  for (const entry of entries) {
    if (!(entry.name in jobCatalogue)) problems.push(`handler for unknown job "${entry.name}"`);
    else if (byName.has(entry.name)) problems.push(`two handlers for job "${entry.name}"`);
    byName.set(entry.name, entry);
  }
  for (const name of Object.keys(jobCatalogue) as JobNameValue[]) {
    if (!byName.has(name)) problems.push(`no handler for job "${name}"`);
  }
  if (problems.length) throw new Error(`Refusing to start workers: ${problems.join('; ')}`);
  return byName;
}

/** Starts one BullMQ worker per queue of the catalogue, dispatching on the job name. */
export function startWorkers(
  ctx: AppContext,
  entries: HandlerEntry[],
  options: WorkerOptions = {},
): RunningWorkers {
  const byName = checkHandlers(entries);
  const queueNames = [...new Set(Object.values(jobCatalogue).map((d) => d.queue))];
  const connection = connectRedis(ctx.config, { maxRetriesPerRequest: null, log: ctx.log });
  const workers = queueNames.map((queueName) =>
    startQueueWorker(ctx, { queueName, byName, connection, options }),
  );
  ctx.log.info('worker', 'workers started', { queues: queueNames });
  // Jobs written by transactions reach BullMQ through the relay; every worker process runs one.
  const relay = startJobRelay(ctx, options.relay);
  const releaseSteps = startReleaseSteps(ctx);
  // Upserted now, or once Redis answers when the worker starts during an outage.
  const scheduling = startWhenReachable(ctx, 'job schedules', async () => {
    const ids = await upsertJobSchedulers(ctx);
    ctx.log.info('worker', 'job schedules upserted', { schedulers: ids });
  });
  const scheduled = scheduling.tried.then(
    () => scheduling.started,
    (err: unknown) => logFailure(ctx.log, 'worker', 'job schedules failed', err),
  );
  const closeGraceMs = options.closeGraceMs ?? 6000;
  return {
    scheduled,
    releaseSteps: releaseSteps.done,
    async close() {
      scheduling.cancel();
      releaseSteps.stop();
      await relay.stop();
      // BullMQ's close waits for Redis (forever, during an outage): after the grace period, at
      // once while Redis is out of reach, the process goes on exiting, and a job still running
      // is retried by the stalled-job check.
      const closed = Promise.all(workers.map((w) => w.close())).then(() => true);
      const graceMs = redisConnected(connection) ? closeGraceMs : 0;
      const inTime = await Promise.race([closed, pause(graceMs).then(() => false)]);
      if (!inTime) {
        ctx.log.info(
          'worker',
          'workers did not close in time; a job still running will be retried',
          {
            graceMs,
          },
        );
      }
      connection.disconnect();
    },
  };
}

/** The worker of one queue: runs each job by its handler and logs the failures. */
function startQueueWorker(
  ctx: AppContext,
  on: {
    queueName: QueueNameValue;
    byName: Map<JobNameValue, HandlerEntry>;
    connection: ReturnType<typeof connectRedis>;
    options: WorkerOptions;
  },
): Worker {
  const { queueName, byName, connection, options } = on;
  const worker = new Worker(
    queueName,
    async (job: Job) => {
      const name = job.name as JobNameValue;
      const entry = byName.get(name);
      if (!entry || jobCatalogue[name].queue !== queueName) {
        throw new Error(`No handler for job "${job.name}" on queue "${queueName}"`);
      }
      const payload = validatePayload(name, job.data);
      const attempts = job.opts.attempts ?? 1;
      const attempt = job.attemptsMade + 1;
      await entry.handle(ctx, payload as never, { attempt, isLastAttempt: attempt >= attempts });
      // Not done before it succeeded: a job Redis loses before this line is handed over again.
      if (job.id) await markJobDone(ctx, job.id);
    },
    {
      connection,
      prefix: queueLocation(ctx.config, queueName).prefix,
      concurrency: options.concurrency?.[queueName] ?? 5,
      lockDuration: options.lockDurationMs ?? 30000,
      stalledInterval: options.stalledIntervalMs ?? 30000,
      maxStalledCount: 2,
    },
  );
  worker.on('failed', (job, err) => {
    if (job?.id && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      void markJobDone(ctx, job.id).catch(() => undefined);
    }
    ctx.log.warn('worker', 'job failed', {
      queue: queueName,
      job: job?.name,
      id: job?.id,
      attempt: job?.attemptsMade,
      error: err.message,
    });
  });
  worker.on('error', (err) => logFailure(ctx.log, 'worker', 'worker error', err));
  return worker;
}
