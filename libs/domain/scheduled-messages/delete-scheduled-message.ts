import { Permission, type AccessUser } from '../permissions/access';
import { lockRow } from '../../db/locks';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { retireDeliveries } from './schedule-delivery';
import { accessScheduledMessage } from './update-scheduled-message';
import { scheduledMessagesEvent } from '../../protocol/events/scheduled-messages';

/**
 * DELETE /scheduled_messages/{id}: removes the sender's scheduled message, emits
 * `scheduled_messages` op remove to the sender, and retires the delivery job in the same
 * transaction (a job already in BullMQ finds the message gone).
 */
export async function deleteScheduledMessage(
  ctx: AppContext,
  sender: AccessUser,
  scheduledMessageId: number,
): Promise<void> {
  await inTransaction(ctx, async (tx, events) => {
    // Locked, then read: of two deletes at once, the second finds none.
    await lockRow(tx, 'scheduled_messages', scheduledMessageId, 'FOR UPDATE');
    const sm = await accessScheduledMessage(tx, {
      user: sender,
      permission: Permission.ScheduledMessageDelete,
      scheduledMessageId,
    });
    await tx.scheduledMessage.delete({ where: { id: sm.id } });
    await retireDeliveries(tx, sm.id);
    await events.emit(
      sender.realmId,
      scheduledMessagesEvent({ op: 'remove', scheduled_message_id: sm.id }),
      [sender.id],
    );
  });
}
