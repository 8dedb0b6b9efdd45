import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { sendMessage } from '../messages/send-message';
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
 * Runs `send` once per marker: a job that runs twice (retried after a crash, or handed to a
 * second worker) posts once. A failed send clears the marker so a retry may post.
 */
async function once(ctx: AppContext, marker: string, send: () => Promise<unknown>): Promise<void> {
  const key = `${ctx.config.redisPrefix}${marker}`;
  const fresh = await ctx.redis.set(key, '1', 'EX', 7 * 86400, 'NX');
  if (fresh !== 'OK') return;
  try {
    await send();
  } catch (err) {
    await ctx.redis.del(key);
    throw err;
  }
}

/**
 * Posts as the bot into the conversation of the triggering message: the same channel and topic,
 * or the same direct-message conversation.
 */
export function postInConversation(ctx: AppContext, d: Delivery, content: string): Promise<void> {
  return once(ctx, `owh-reply:${d.dict.id}:${d.bot.id}`, () => {
    if (d.dict.type === 'stream') {
      return sendMessage(ctx, {
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
    return sendMessage(ctx, {
      sender: d.bot,
      realm: d.realm,
      type: 'private',
      to: to.length ? to : [d.dict.sender_id],
      content,
      clientName: REPLY_CLIENT,
    });
  });
}

/** A direct message from the bot to its owner (Zulip's notify_bot_owner sends it as the bot). */
export function postToOwner(
  ctx: AppContext,
  d: Delivery,
  owner: User,
  content: string,
): Promise<void> {
  return once(ctx, `owh-owner:${d.dict.id}:${d.bot.id}`, () =>
    sendMessage(ctx, {
      sender: d.bot,
      realm: d.realm,
      type: 'private',
      to: [owner.id],
      content,
      clientName: REPLY_CLIENT,
    }),
  );
}
