import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client';
import type { Tx } from '../db/client';
import { validatePayload, type JobNameValue, type JobType } from './job-catalogue';

export interface WriteJobOptions {
  /** Stable job ID: a second row with the same ID is not written, and BullMQ keeps one job. */
  jobId?: string;
  /** When the job may run; now when not given. */
  runAt?: Date;
}

/** One job of a `writeJobs` call. */
export interface JobToWrite<P> extends WriteJobOptions {
  payload: P;
}

/** Rows of jobs of one kind for `job_outbox`, checked against the job's payload schema. */
export interface JobRows {
  name: string;
  payloads: string[];
  ids: string[];
  runAt: string[];
}

export function jobRows<N extends JobNameValue, P>(
  job: JobType<N, P>,
  jobs: JobToWrite<P>[],
): JobRows {
  return {
    name: job.name,
    payloads: jobs.map((j) => JSON.stringify(validatePayload(job.name, j.payload))),
    ids: jobs.map((j) => j.jobId ?? `${job.name}-${randomUUID()}`),
    runAt: jobs.map((j) => (j.runAt ?? new Date()).toISOString()),
  };
}

/**
 * The INSERT of job rows, a second row with a job's ID being dropped: a statement of its own, or
 * a data-modifying CTE of another (the event outbox writes a transaction's jobs with its events).
 */
export const insertJobRows = ({ name, payloads, ids, runAt }: JobRows): Prisma.Sql => Prisma.sql`
  INSERT INTO job_outbox (job_name, payload, job_id, run_at)
  SELECT ${name}, p::jsonb, i, r::timestamptz
  FROM unnest(${payloads}::text[], ${ids}::text[], ${runAt}::text[]) AS t(p, i, r)
  ON CONFLICT (job_id) DO NOTHING`;

/**
 * Writes jobs of one kind into `job_outbox` inside the caller's transaction: they exist exactly
 * when the transaction commits, and the relay in the worker tier hands them to BullMQ
 * (relay.ts). Nothing here waits on Redis. One INSERT for the whole list.
 */
export async function writeJobs<N extends JobNameValue, P>(
  tx: Tx,
  job: JobType<N, P>,
  jobs: JobToWrite<P>[],
): Promise<void> {
  if (jobs.length === 0) return;
  await tx.$executeRaw(insertJobRows(jobRows(job, jobs)));
}

/** `writeJobs` for one job. */
export const writeJob = <N extends JobNameValue, P>(
  tx: Tx,
  job: JobType<N, P>,
  payload: P,
  options: WriteJobOptions = {},
): Promise<void> => writeJobs(tx, job, [{ payload, ...options }]);

/**
 * Records, in the transaction that carries it out, an effect a job must have once however
 * often it runs. Returns false when the effect was already recorded (committed by an earlier
 * run); a concurrent run waits on the key until this transaction ends.
 */
export async function claimJobEffect(tx: Tx, key: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ key: string }[]>`
    INSERT INTO job_effects (key) VALUES (${key}) ON CONFLICT (key) DO NOTHING RETURNING key`;
  return rows.length === 1;
}
