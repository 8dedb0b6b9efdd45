import type { Tx } from '../../db/client';
import { Jobs, writeJob } from '../../jobs';

/**
 * Stable BullMQ job ID per scheduled message and delivery time (BullMQ refuses IDs with one
 * ":"): a moved message gets a new job, and the old one, if it runs, finds nothing due.
 */
export const scheduledDeliveryJobId = (scheduledMessageId: number, at: Date) =>
  `sched-${scheduledMessageId}-${at.getTime()}`;

/**
 * In the transaction that stores or moves the scheduled message: its delivery job at `at`, and
 * the end of the jobs for its earlier times (a job already in BullMQ runs and finds the message
 * moved, which the delivery checks).
 */
export async function writeDelivery(tx: Tx, scheduledMessageId: number, at: Date): Promise<void> {
  const jobId = scheduledDeliveryJobId(scheduledMessageId, at);
  await retireDeliveries(tx, scheduledMessageId, jobId);
  await writeJob(tx, Jobs.deliverScheduledMessage, { scheduledMessageId }, { jobId, runAt: at });
}

/** In the transaction that deletes (or moves) the scheduled message: its jobs have nothing to do. */
export async function retireDeliveries(
  tx: Tx,
  scheduledMessageId: number,
  exceptJobId = '',
): Promise<void> {
  await tx.$executeRaw`
    UPDATE job_outbox SET done_at = now()
    WHERE done_at IS NULL AND job_name = ${Jobs.deliverScheduledMessage.name}
      AND payload @> ${JSON.stringify({ scheduledMessageId })}::jsonb AND job_id <> ${exceptJobId}`;
}
