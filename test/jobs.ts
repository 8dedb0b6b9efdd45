import { type JobType, type JobNameValue } from '../libs/jobs';
import type { TestContext } from './harness';

/** The payloads of the jobs of one kind that transactions wrote (job_outbox), oldest first. */
export async function jobsWritten<N extends JobNameValue, P>(
  t: TestContext,
  job: JobType<N, P>,
): Promise<P[]> {
  const rows = await t.db.jobOutbox.findMany({
    where: { jobName: job.name },
    orderBy: { id: 'asc' },
  });
  return rows.map((r) => r.payload as P);
}
