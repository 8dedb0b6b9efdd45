import type { AppContext } from '../../core/context';
import type { NotifyCollectedQueuePayload } from '../../jobs';
import { decideMessageNotifications, type DecisionOutcome } from './decide-notifications';

/**
 * Job handler (notify-collected-queue), the worker's half of Zulip's missedmessage_hook: the
 * messages a user's last, now collected, event queue still held are decided again for that user
 * alone, as someone away. The rules skip what was read meanwhile; an email row is written once
 * per message and a push sent once per copy, so what was already sent is not sent again.
 */
export async function notifyCollectedQueue(
  ctx: AppContext,
  payload: NotifyCollectedQueuePayload,
): Promise<DecisionOutcome> {
  const total: DecisionOutcome = { recipients: 0, emails: 0, pushes: 0 };
  for (const messageId of payload.messageIds) {
    const outcome = await decideMessageNotifications(
      ctx,
      { messageId },
      { awayUserId: payload.userId },
    );
    total.recipients += outcome.recipients;
    total.emails += outcome.emails;
    total.pushes += outcome.pushes;
  }
  return total;
}
