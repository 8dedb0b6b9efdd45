import type { AppContext } from '../core/context';
import { sqlPool, sqlRows } from '../db/sql';
import { Jobs } from '../jobs/job-catalogue';
import { MAX_COLLECTED_MESSAGES } from '../jobs/notifications';
import { insertJobRows, jobRows } from '../jobs/outbox';
import type { CollectedQueue } from './queue-store';

/** The stable id of the job a collected queue leaves behind. */
export const collectedQueueJobId = (queueId: string) => `notify-collected-queue-${queueId}`;

/**
 * Zulip's missedmessage_hook. A user whose client vanished (a laptop closed mid-conversation)
 * still had a queue when their messages came, so they did not count as away and were told
 * nothing; when the garbage collector deletes the last of their queues, the messages that queue
 * still held are decided again for them as someone away (a notify-collected-queue job, written
 * to the job outbox the worker tier relays to BullMQ). Messages read meanwhile, or already
 * emailed or pushed, come to nothing there.
 */
export async function missedMessageHook(ctx: AppContext, queue: CollectedQueue): Promise<void> {
  if (!queue.lastForUser || queue.messageIds.length === 0) return;
  const rows = jobRows(Jobs.notifyCollectedQueue, [
    {
      payload: {
        userId: queue.userId,
        messageIds: queue.messageIds.slice(-MAX_COLLECTED_MESSAGES),
      },
      jobId: collectedQueueJobId(queue.queueId),
    },
  ]);
  await sqlRows(sqlPool(ctx), insertJobRows(rows));
}
