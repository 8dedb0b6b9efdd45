import { linkScheduledAttachments } from '../attachments/claim-attachments';
import type { Prisma, Realm, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { lockRow } from '../../db/locks';
import { inTransaction } from '../../events/outbox';
import { badRequest, notFound } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { RecipientType } from '../recipients';
import { Permission, requireAccess, type AccessUser } from '../permissions/access';
import {
  checkDeliveryTime,
  checkScheduledMessage,
  isChannelType,
  type CheckedScheduledMessage,
  type ScheduledTarget,
  type ScheduledType,
} from './create-scheduled-message';
import {
  formatScheduledMessages,
  type ScheduledMessageWithRecipient,
} from './format-scheduled-message';
import { writeDelivery } from './schedule-delivery';
import { scheduledMessagesEvent } from '../../protocol/events/scheduled-messages';
import { at } from '../../core/at';

export interface ScheduledMessageChanges {
  type?: ScheduledType;
  to?: ScheduledTarget;
  topic?: string;
  content?: string;
  scheduledDeliveryTimestamp?: number;
}

/**
 * Zulip's access_scheduled_message: only the sender's own "send later" messages exist
 * (`Permission.ScheduledMessageUpdate` and `ScheduledMessageDelete`).
 */
export async function accessScheduledMessage(
  db: Db | Tx,
  {
    user,
    permission,
    scheduledMessageId,
  }: {
    user: AccessUser;
    permission: Permission.ScheduledMessageUpdate | Permission.ScheduledMessageDelete;
    scheduledMessageId: number;
  },
): Promise<ScheduledMessageWithRecipient> {
  await requireAccess(db, { auth: { user }, permission, ids: [scheduledMessageId] });
  const row = await db.scheduledMessage.findUnique({
    where: { id: scheduledMessageId },
    include: { recipient: true },
  });
  if (!row) throw notFound('Scheduled message does not exist');
  return row;
}

/** The stored message's `to` as the API takes it: channel ID, or the conversation's user IDs. */
async function existingTarget(
  db: Db | Tx,
  sm: ScheduledMessageWithRecipient,
): Promise<{ type: ScheduledType; to: ScheduledTarget }> {
  const { recipient } = sm;
  if (recipient.type === RecipientType.STREAM) return { type: 'stream', to: recipient.typeId };
  if (recipient.type === RecipientType.PERSONAL) return { type: 'private', to: [recipient.typeId] };
  const members = await db.subscription.findMany({
    where: { recipientId: recipient.id },
    select: { userId: true },
    orderBy: { userId: 'asc' },
  });
  return { type: 'private', to: members.map((m) => m.userId) };
}

/** The checks that need no database; the new delivery time, when one is asked for. */
function checkChanges(changes: ScheduledMessageChanges): Date | undefined {
  const { type, to, topic, content, scheduledDeliveryTimestamp } = changes;
  if (
    type === undefined &&
    to === undefined &&
    topic === undefined &&
    content === undefined &&
    scheduledDeliveryTimestamp === undefined
  ) {
    throw badRequest('Nothing to change');
  }
  if (type !== undefined && to === undefined) {
    throw badRequest('Recipient required when updating type of scheduled message.');
  }
  if (type !== undefined && isChannelType(type) && topic === undefined) {
    throw badRequest('Topic required when updating scheduled message type to channel.');
  }
  return scheduledDeliveryTimestamp === undefined
    ? undefined
    : checkDeliveryTime(scheduledDeliveryTimestamp);
}

/**
 * PATCH /scheduled_messages/{id}: Zulip's edit_scheduled_message. Any change to the
 * addressees, topic or content re-checks the whole message; a new time clears a failure.
 * Emits `scheduled_messages` op update with the full dict and moves the delivery job.
 */
export async function updateScheduledMessage(
  ctx: AppContext,
  {
    sender,
    realm,
    scheduledMessageId,
    changes,
  }: { sender: User; realm: Realm; scheduledMessageId: number; changes: ScheduledMessageChanges },
): Promise<void> {
  const { type, to, topic, content } = changes;
  const deliverAt = checkChanges(changes);

  await inTransaction(ctx, async (tx, events) => {
    // Locked, then read and checked: a partial edit keeps what an edit committed meanwhile wrote.
    await lockRow(tx, 'scheduled_messages', scheduledMessageId);
    const sm = await accessScheduledMessage(tx, {
      user: sender,
      permission: Permission.ScheduledMessageUpdate,
      scheduledMessageId,
    });
    if (sm.delivered) throw badRequest('Scheduled message was already sent');
    if (sm.failed && deliverAt === undefined) {
      throw badRequest('Scheduled delivery time must be in the future.');
    }

    let checked: CheckedScheduledMessage | null = null;
    if (type !== undefined || to !== undefined || topic !== undefined || content !== undefined) {
      const existing = await existingTarget(tx, sm);
      const newType = type ?? existing.type;
      checked = await checkScheduledMessage(ctx, sender, realm, {
        type: newType,
        to: to ?? existing.to,
        topic: isChannelType(newType) ? (topic ?? sm.subject) : undefined,
        content: content ?? sm.content,
      });
    }

    const data: Prisma.ScheduledMessageUncheckedUpdateInput = {};
    if (checked) {
      data.recipientId = await checked.recipientId(tx);
      data.subject = checked.topic;
      data.content = checked.content;
      data.renderedContent = checked.renderedContent;
      data.hasAttachment = checked.hasAttachment;
    }
    if (deliverAt) {
      data.scheduledTimestamp = deliverAt;
      data.failed = false;
      data.failureMessage = null;
    }
    // Guarded by NOT delivered: a delivery that won the race leaves nothing to edit.
    const updated = await tx.scheduledMessage.updateMany({
      where: { id: sm.id, delivered: false },
      data,
    });
    if (updated.count === 0) throw badRequest('Scheduled message was already sent');
    if (deliverAt) await writeDelivery(tx, sm.id, deliverAt);
    if (checked) {
      await linkScheduledAttachments(tx, {
        scheduledMessageId: sm.id,
        sender,
        renderedContent: checked.renderedContent,
      });
    }
    const row = await tx.scheduledMessage.findUniqueOrThrow({
      where: { id: sm.id },
      include: { recipient: true },
    });
    const dict = at(await formatScheduledMessages(tx, [row]), 0);
    await events.emit(realm.id, scheduledMessagesEvent({ op: 'update', scheduled_message: dict }), [
      sender.id,
    ]);
  });
}
