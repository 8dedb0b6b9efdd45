import type { ServerResponse } from 'node:http';
import type { EventsTier } from '../../libs/events/events-tier';

/**
 * After a poll of a queue, answered or failed: while the process drains, the answer closes its
 * connection, so the client's next poll opens one to a replica that stays.
 */
export function afterPoll(tier: EventsTier, client: ServerResponse): void {
  if (tier.waker.isDraining) client.shouldKeepAlive = false;
}
