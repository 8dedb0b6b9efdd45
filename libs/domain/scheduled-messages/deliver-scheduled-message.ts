import { Prisma, type ScheduledMessage, type User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction, type EventSink } from '../../events/outbox';
import { ApiError } from '../../core/errors';
import type { ScheduledDeliveryPayload } from '../../jobs';
import { findNotificationBot } from '../bots/notification-bot';
import type { AppContext } from '../../core/context';
import {
  prepareMessage,
  sendMessage,
  writeMessage,
  type PreparedMessage,
  type SendMessageInput,
} from '../messages/send-message';
import { RecipientType } from '../recipients';
import { formatScheduledMessages } from './format-scheduled-message';
import { scheduledMessagesEvent } from '../../protocol/events/scheduled-messages';
import { at } from '../../core/at';

export interface DeliveryAttempt {
  isLastAttempt: boolean;
}

/** Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: a message this late is not sent at all. */
const LATE_CUTOFF_MS = 10 * 60 * 1000;

/** Zulip's delivery_type for "send later" (2 is a reminder, which has its own notices). */
const SEND_LATER = 1;

/**
 * Why a delivery failed. `tellSender` is false where Zulip stays silent: the sender or the
 * organization was deactivated, so nobody is there to read a notice or an event.
 */
interface Failure {
  message: string;
  tellSender: boolean;
}

type Outcome =
  | { kind: 'sent'; messageId: number }
  | { kind: 'failed'; sm: ScheduledMessage; sender: User; failure: Failure };

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

/** Python's str() of an aware UTC datetime, which Zulip writes inside `<time:...>`. */
function pythonUtc(when: Date): string {
  const iso = when.toISOString();
  const t = iso.indexOf('T');
  const [seconds, millis] = iso.slice(t + 1, -1).split('.');
  return `${iso.slice(0, t)} ${seconds}${Number(millis) ? `.${millis}000` : ''}+00:00`;
}

/**
 * Zulip's send_failed_scheduled_message_notification text. Its template puts a space after
 * the `<time:...> ` value and another before "was", hence the two spaces.
 */
export function failureNoticeText(scheduledAt: Date, failureMessage: string): string {
  return (
    `The message you scheduled for <time:${pythonUtc(scheduledAt)}>  was not sent because of the following error:` +
    `\n\n> ${failureMessage}\n\n[View scheduled messages](#scheduled)`
  );
}

/** Locks the row while it is still pending; null when it is delivered, failed or gone. */
async function lockPending(tx: Tx, id: number) {
  const locked = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
    SELECT id FROM scheduled_messages WHERE id = ${id} AND NOT delivered AND NOT failed
    FOR UPDATE`);
  if (locked.length === 0) return null;
  return tx.scheduledMessage.findUniqueOrThrow({
    where: { id },
    include: { sender: true, realm: true },
  });
}

/** Marks the row failed; the sender hears of it through a `scheduled_messages` update event. */
async function markFailed(
  tx: Tx,
  events: EventSink,
  sm: ScheduledMessage & { sender: User },
  failure: Failure,
): Promise<Outcome> {
  const row = await tx.scheduledMessage.update({
    where: { id: sm.id },
    data: { failed: true, failureMessage: failure.message },
    include: { recipient: true },
  });
  if (failure.tellSender) {
    const formatted = at(await formatScheduledMessages(tx, [row]), 0);
    await events.emit(
      sm.realmId,
      scheduledMessagesEvent({ op: 'update', scheduled_message: formatted }),
      [sm.senderId],
    );
  }
  return { kind: 'failed', sm: row, sender: sm.sender, failure };
}

/**
 * Zulip's try_deliver_one_scheduled_message for one row. The row stays locked
 * (SELECT ... FOR UPDATE) while the message is sent, and is marked delivered in that same
 * transaction: a second run, concurrent or later, finds it delivered and sends nothing.
 */
async function attemptDelivery(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  id: number,
): Promise<Outcome | null> {
  const sm = await lockPending(tx, id);
  if (!sm) return null;
  // Moved later after this job was queued: the moved job delivers it.
  if (sm.scheduledTimestamp.getTime() > Date.now() + 1000) return null;

  if (sm.realm.deactivated) {
    return markFailed(tx, events, sm, {
      message: 'This organization has been deactivated',
      tellSender: false,
    });
  }
  if (!sm.sender.isActive) {
    return markFailed(tx, events, sm, { message: 'Account is deactivated', tellSender: false });
  }
  if (Date.now() > sm.scheduledTimestamp.getTime() + LATE_CUTOFF_MS) {
    return markFailed(tx, events, sm, {
      message: 'Message could not be sent at the scheduled time.',
      tellSender: true,
    });
  }
  let prepared: PreparedMessage;
  try {
    // Checked again now: the channel may be archived or the permission gone since scheduling.
    // Read in this transaction: it holds a pooled connection, and reads on another one would
    // wait for a free one; with as many deliveries running as the pool has connections, none
    // would come until the transactions timed out.
    prepared = await prepareMessage(
      ctx,
      {
        sender: sm.sender,
        realm: sm.realm,
        ...(await target(tx, sm)),
        content: sm.content,
        clientName: sm.sendingClientName,
        readBySender: sm.readBySender,
      },
      tx,
    );
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return markFailed(tx, events, sm, { message: err.message, tellSender: true });
  }
  // Written in this transaction, so the message and the delivered mark commit together.
  const { id: messageId } = await writeMessage(tx, events, prepared);
  await tx.scheduledMessage.update({
    where: { id: sm.id },
    data: { delivered: true, deliveredMessageId: messageId },
  });
  await events.emit(
    sm.realmId,
    scheduledMessagesEvent({ op: 'remove', scheduled_message_id: sm.id }),
    [sm.senderId],
  );
  return { kind: 'sent', messageId };
}

/**
 * Job handler. A refusal by the send checks (channel archived, permission lost, sender
 * deactivated, too late) marks the row failed with the reason and, as Zulip does, tells the
 * sender. An unexpected error is retried; after the last attempt the row fails with Zulip's
 * "Internal server error".
 */
export async function deliverScheduledMessage(
  ctx: AppContext,
  payload: ScheduledDeliveryPayload,
  run: DeliveryAttempt,
): Promise<void> {
  const id = payload.scheduledMessageId;
  let outcome: Outcome | null;
  try {
    outcome = await inTransaction(ctx, (tx, events) => attemptDelivery(ctx, tx, events, id));
  } catch (err) {
    if (!run.isLastAttempt) throw err;
    ctx.log.error('worker', 'unexpected error sending a scheduled message', {
      scheduledMessageId: id,
      error: err instanceof Error ? err.message : String(err),
    });
    outcome = await inTransaction(ctx, async (tx, events) => {
      const sm = await lockPending(tx, id);
      return sm
        ? markFailed(tx, events, sm, { message: 'Internal server error', tellSender: true })
        : null;
    });
  }

  if (outcome?.kind === 'failed') {
    ctx.log.info('worker', 'scheduled message not delivered', {
      scheduledMessageId: id,
      reason: outcome.failure.message,
    });
    if (outcome.failure.tellSender) await notifySender(ctx, outcome.sender, outcome.sm);
  }
}

/** A direct message from the notification bot, in Zulip's words. */
async function notifySender(ctx: AppContext, sender: User, sm: ScheduledMessage): Promise<void> {
  if (sm.deliveryType !== SEND_LATER) return;
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
    content: failureNoticeText(sm.scheduledTimestamp, sm.failureMessage ?? ''),
    clientName: 'Internal',
  });
}
