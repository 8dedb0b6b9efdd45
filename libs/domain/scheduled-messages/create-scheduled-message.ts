import { linkScheduledAttachments } from '../attachments/claim-attachments';
import type { Realm, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import { P, type Infer } from '../../core/schema';
import type { AppContext } from '../../core/context';
import { directRecipientId } from '../messages/addressees';
import { checkAddressee } from '../messages/check-addressee';
import { normalizeContent } from '../messages/content';
import { CHANNEL_TYPES, DIRECT_TYPES } from '../messages/types';
import { renderCheckingMentions } from '../messages/send-message';
import { formatScheduledMessages } from './format-scheduled-message';
import { writeDelivery } from './schedule-delivery';
import { scheduledMessagesEvent } from '../../protocol/events/scheduled-messages';

export type ScheduledType = (typeof CHANNEL_TYPES)[number] | (typeof DIRECT_TYPES)[number];

/** `to` of a scheduled message: a channel ID, or user IDs for a direct message. */
export const scheduledTarget = P.alternatives(P.int(), P.array(P.int()));
export type ScheduledTarget = Infer<typeof scheduledTarget>;

export interface ScheduledMessageDraft {
  type: ScheduledType;
  to: ScheduledTarget;
  topic?: string;
  content: string;
}

/** A scheduled message that passed Zulip's check_message; `recipientId` resolves in the transaction. */
export interface CheckedScheduledMessage {
  recipientId: (tx: Tx) => Promise<number>;
  topic: string;
  content: string;
  renderedContent: string;
  hasAttachment: boolean;
}

export const isChannelType = (type: ScheduledType) =>
  (CHANNEL_TYPES as readonly string[]).includes(type);

/** Zulip refuses a delivery time that is not strictly in the future. */
export function checkDeliveryTime(unixSeconds: number): Date {
  const at = new Date(unixSeconds * 1000);
  if (!(at.getTime() > Date.now())) {
    throw badRequest('Scheduled delivery time must be in the future.');
  }
  return at;
}

/**
 * Validates a scheduled message as the send action would validate the message itself: the
 * addressees exist, the sender may post there, the topic and content are valid, the mentions
 * are allowed. Nothing is written.
 */
export async function checkScheduledMessage(
  ctx: AppContext,
  sender: User,
  realm: Realm,
  draft: ScheduledMessageDraft,
): Promise<CheckedScheduledMessage> {
  const content = normalizeContent(draft.content);
  const { channel, topic, directUsers } = await checkAddressee(ctx.db, { realm, sender, draft });
  const rendered = await renderCheckingMentions(ctx, { realm, sender, channel, content });
  const stream = channel;
  return {
    recipientId: (tx) =>
      stream
        ? Promise.resolve(stream.recipientId as number)
        : directRecipientId(tx, realm.id, sender, directUsers),
    topic,
    content,
    renderedContent: rendered.html,
    hasAttachment: rendered.hasAttachment,
  };
}

export interface CreateScheduledMessageInput extends ScheduledMessageDraft {
  sender: User;
  realm: Realm;
  scheduledDeliveryTimestamp: number;
  readBySender?: boolean;
  clientName: string;
}

/**
 * POST /scheduled_messages: checks the time and the message, stores it, emits
 * `scheduled_messages` op add to the sender, and writes the delivery job, all in one transaction.
 */
export async function createScheduledMessage(
  ctx: AppContext,
  input: CreateScheduledMessageInput,
): Promise<number> {
  const { sender, realm } = input;
  const at = checkDeliveryTime(input.scheduledDeliveryTimestamp);
  const checked = await checkScheduledMessage(ctx, sender, realm, input);
  const id = await inTransaction(ctx, async (tx, events) => {
    const row = await tx.scheduledMessage.create({
      data: {
        realmId: realm.id,
        senderId: sender.id,
        recipientId: await checked.recipientId(tx),
        subject: checked.topic,
        content: checked.content,
        renderedContent: checked.renderedContent,
        hasAttachment: checked.hasAttachment,
        scheduledTimestamp: at,
        readBySender: input.readBySender ?? null,
        sendingClientName: input.clientName,
      },
      include: { recipient: true },
    });
    await linkScheduledAttachments(tx, {
      scheduledMessageId: row.id,
      sender,
      renderedContent: checked.renderedContent,
    });
    await writeDelivery(tx, row.id, at);
    const dicts = await formatScheduledMessages(tx, [row]);
    await events.emit(realm.id, scheduledMessagesEvent({ op: 'add', scheduled_messages: dicts }), [
      sender.id,
    ]);
    return row.id;
  });
  return id;
}
