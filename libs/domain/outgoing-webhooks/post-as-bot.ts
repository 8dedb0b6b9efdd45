import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { claimJobEffect } from '../../jobs';
import { prepareMessage, writeMessage, type SendMessageInput } from '../messages/send-message';
import type { ApiMessage } from '../messages/types';

/** Client name of everything an outgoing-webhook bot posts, as in Zulip. */
export const REPLY_CLIENT = 'OutgoingWebhookResponse';

/** One delivery: the bot, and the triggering message as the bot received it. */
export interface Delivery {
  realm: Realm;
  bot: User;
  dict: ApiMessage;
}

/**
 * Sends once per effect key: the key is recorded in the message's own transaction
 * (job_effects), so a job that runs twice (retried after a crash, handed to a second worker, or
 * handed over again after Redis lost its data) posts once. A failed send records nothing.
 */
async function sendOnce(ctx: AppContext, key: string, input: SendMessageInput): Promise<void> {
  const prepared = await prepareMessage(ctx, input);
  await inTransaction(ctx, async (tx, events) => {
    if (await claimJobEffect(tx, key)) await writeMessage(tx, events, prepared);
  });
}

/**
 * Posts as the bot into the conversation of the triggering message: the same channel and topic,
 * or the same direct-message conversation.
 */
export function postInConversation(ctx: AppContext, d: Delivery, content: string): Promise<void> {
  const key = `owh-reply:${d.dict.id}:${d.bot.id}`;
  if (d.dict.type === 'stream') {
    return sendOnce(ctx, key, {
      sender: d.bot,
      realm: d.realm,
      type: 'stream',
      to: d.dict.stream_id as number,
      topic: d.dict.subject,
      content,
      clientName: REPLY_CLIENT,
    });
  }
  const users = Array.isArray(d.dict.display_recipient) ? d.dict.display_recipient : [];
  const to = users.map((u) => u.id).filter((id) => id !== d.bot.id);
  return sendOnce(ctx, key, {
    sender: d.bot,
    realm: d.realm,
    type: 'private',
    to: to.length ? to : [d.dict.sender_id],
    content,
    clientName: REPLY_CLIENT,
  });
}

/** A direct message from the bot to its owner (Zulip's notify_bot_owner sends it as the bot). */
export function postToOwner(
  ctx: AppContext,
  d: Delivery,
  owner: User,
  content: string,
): Promise<void> {
  return sendOnce(ctx, `owh-owner:${d.dict.id}:${d.bot.id}`, {
    sender: d.bot,
    realm: d.realm,
    type: 'private',
    to: [owner.id],
    content,
    clientName: REPLY_CLIENT,
  });
}
