import { Prisma, type ScheduledMessage, type User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { ApiError } from '../../http/errors';
import type { ScheduledDeliveryPayload } from '../../jobs';
import { findNotificationBot } from '../bots/notification-bot';
import type { AppContext } from '../context';
import {
  prepareMessage,
  sendMessage,
  writeMessage,
  type SendMessageInput,
} from '../messages/send-message';
import { enqueueOutgoingWebhooks } from '../outgoing-webhooks/triggers';
import { RecipientType } from '../recipients';

export interface DeliveryAttempt {
  isLastAttempt: boolean;
}

/** Where the scheduled message goes, in the send action's terms. */
async function target(
  tx: Tx,
  sm: ScheduledMessage,
): Promise<Pick<SendMessageInput, 'type' | 'to' | 'topic'>> {
  const recipient = await tx.recipient.findUniqueOrThrow({ where: { id: sm.recipientId } });
  if (recipient.type === RecipientType.STREAM) {
    return { type: 'stream', to: recipient.typeId, topic: sm.subject };
  }
  if (recipient.type === RecipientType.PERSONAL) return { type: 'private', to: [recipient.typeId] };
  const members = await tx.subscription.findMany({
    where: { recipientId: recipient.id },
    select: { userId: true },
    orderBy: { userId: 'asc' },
  });
  return { type: 'private', to: members.map((m) => m.userId) };
}

/** Zulip's notice to the sender of a scheduled message that could not be sent. */
export function failureNoticeText(scheduledAt: Date, failureMessage: string): string {
  return [
    `The message you scheduled for <time:${scheduledAt.toISOString()}> was not sent because of the following error:`,
    `> ${failureMessage}`,
    '',
    '[View scheduled messages](#scheduled)',
  ].join('\n');
}

/**
 * Job handler. The scheduled row stays locked (SELECT ... FOR UPDATE) while the message is sent,
 * and is marked delivered in that same transaction: a second run, concurrent or later, finds it
 * delivered and sends nothing. A refusal by the send action (channel archived, permission lost,
 * sender deactivated) marks the row failed with the reason and tells the sender.
 */
export async function deliverScheduledMessage(
  ctx: AppContext,
  payload: ScheduledDeliveryPayload,
  run: DeliveryAttempt,
): Promise<void> {
  const outcome = await inTransaction(ctx, async (tx, events) => {
    const locked = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
      SELECT id FROM scheduled_messages
      WHERE id = ${payload.scheduledMessageId} AND NOT delivered AND NOT failed
      FOR UPDATE`);
    if (locked.length === 0) return null;
    const sm = await tx.scheduledMessage.findUniqueOrThrow({
      where: { id: payload.scheduledMessageId },
      include: { sender: true, realm: true },
    });
    // Moved later after this job was queued: the moved job delivers it.
    if (sm.scheduledTimestamp.getTime() > Date.now() + 1000) return null;

    let failure: string | null = null;
    let messageId: number | null = null;
    try {
      if (!sm.sender.isActive) throw new ApiError(400, 'BAD_REQUEST', 'Account is deactivated');
      // Written in this transaction, so the message and the delivered mark commit together.
      const prepared = await prepareMessage(ctx, {
        sender: sm.sender,
        realm: sm.realm,
        ...(await target(tx, sm)),
        content: sm.content,
        clientName: sm.sendingClientName,
        readBySender: sm.readBySender,
      });
      messageId = (await writeMessage(tx, events, prepared)).id;
    } catch (err) {
      if (err instanceof ApiError) failure = err.message;
      else if (run.isLastAttempt) failure = 'Internal server error';
      else throw err;
    }

    if (messageId !== null) {
      await tx.scheduledMessage.update({
        where: { id: sm.id },
        data: { delivered: true, deliveredMessageId: messageId },
      });
      await events.emit(
        sm.realmId,
        { type: 'scheduled_messages', op: 'remove', scheduled_message_id: sm.id },
        [sm.senderId],
      );
      return { kind: 'sent' as const, messageId };
    }
    await tx.scheduledMessage.update({
      where: { id: sm.id },
      data: { failed: true, failureMessage: failure },
    });
    await events.emit(
      sm.realmId,
      {
        type: 'scheduled_messages',
        op: 'update',
        scheduled_message: { scheduled_message_id: sm.id, failed: true },
      },
      [sm.senderId],
    );
    return { kind: 'failed' as const, sm, sender: sm.sender, failure: failure as string };
  });

  if (outcome?.kind === 'sent') await enqueueOutgoingWebhooks(ctx, outcome.messageId);
  if (outcome?.kind === 'failed') {
    ctx.log.info('worker', 'scheduled message not delivered', {
      scheduledMessageId: outcome.sm.id,
      reason: outcome.failure,
    });
    await notifySender(ctx, outcome.sender, outcome.sm, outcome.failure);
  }
}

async function notifySender(
  ctx: AppContext,
  sender: User,
  sm: ScheduledMessage,
  failure: string,
): Promise<void> {
  if (!sender.isActive || sm.deliveryType !== 1) return;
  const [bot, realm] = await Promise.all([
    findNotificationBot(ctx.db, sm.realmId),
    ctx.db.realm.findUniqueOrThrow({ where: { id: sm.realmId } }),
  ]);
  if (!bot) return;
  await sendMessage(ctx, {
    sender: bot,
    realm,
    type: 'private',
    to: [sender.id],
    content: failureNoticeText(sm.scheduledTimestamp, failure),
    clientName: 'Internal',
  });
}
