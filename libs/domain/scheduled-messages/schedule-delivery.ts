import { enqueueJob, JobName, removeJob, rescheduleJob } from '../../jobs';
import type { AppContext } from '../../core/context';

/** Stable BullMQ job ID per scheduled message (BullMQ refuses IDs with one ":"). */
export const scheduledDeliveryJobId = (scheduledMessageId: number) => `sched-${scheduledMessageId}`;

/**
 * Creates or moves the delayed delivery job of a scheduled message; call after the row commits.
 * Idempotent: the job ID is the scheduled message's ID.
 */
export async function scheduleDelivery(
  ctx: AppContext,
  scheduledMessageId: number,
  at: Date,
): Promise<void> {
  await rescheduleJob(
    ctx,
    JobName.DELIVER_SCHEDULED_MESSAGE,
    { scheduledMessageId },
    scheduledDeliveryJobId(scheduledMessageId),
    at.getTime() - Date.now(),
  );
}

/** Removes the delivery job (the scheduled message was deleted). */
export async function cancelDelivery(ctx: AppContext, scheduledMessageId: number): Promise<void> {
  await removeJob(
    ctx,
    JobName.DELIVER_SCHEDULED_MESSAGE,
    scheduledDeliveryJobId(scheduledMessageId),
  );
}

/** For the first enqueue of a new scheduled message (no job to move). */
export async function enqueueDelivery(
  ctx: AppContext,
  scheduledMessageId: number,
  at: Date,
): Promise<void> {
  await enqueueJob(
    ctx,
    JobName.DELIVER_SCHEDULED_MESSAGE,
    { scheduledMessageId },
    { jobId: scheduledDeliveryJobId(scheduledMessageId), delay: at.getTime() - Date.now() },
  );
}
