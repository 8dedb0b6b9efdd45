import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import type { EventsTier } from '../../libs/events/events-tier';
import { getEvents, type GetEventsInput, type QueueOwner } from '../../libs/events/get-events';

/**
 * One poll of a queue for the response `res` answers: its events, at once or when they come, an
 * empty list at the heartbeat or when the process drains, or null when the client hung up first
 * (the events stay queued for its next poll).
 */
export async function pollQueue(
  ctx: AppContext,
  tier: EventsTier,
  user: QueueOwner,
  poll: Pick<GetEventsInput, 'queueId' | 'lastEventId' | 'dontBlock'>,
  res: ServerResponse,
): ReturnType<typeof getEvents> {
  try {
    return await getEvents(tier.store, tier.waker, {
      ...poll,
      user,
      heartbeatSeconds: ctx.config.heartbeatSeconds,
      client: res,
    });
  } finally {
    // Draining: the answer closes its connection, so the client's next poll opens one to a
    // replica that stays.
    if (tier.waker.isDraining) res.shouldKeepAlive = false;
  }
}
