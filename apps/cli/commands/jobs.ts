import type { AppContext } from '../../../libs/core/context';
import { moveJobsToQueueSlots } from '../../../libs/jobs/move-to-queue-slots';
import { parseFlags } from '../args';

/**
 * `move-jobs-to-queue-slots`: the upgrade that gives each BullMQ queue its own Redis Cluster hash
 * tag moves the jobs still pending under the old shared prefix (see `moveJobsToQueueSlots`).
 */
export async function moveJobsToQueueSlotsCommand(ctx: AppContext, argv: string[]) {
  parseFlags(argv, []);
  return { queues: await moveJobsToQueueSlots(ctx) };
}
