import type { Realm, User } from '../../../generated/prisma/client';
import type { OutgoingWebhookPayload } from '../../jobs';
import { ServiceInterface } from '../bots/service-token';
import type { AppContext } from '../context';
import { formatMessages } from '../messages/format-message';
import { sendMessage } from '../messages/send-message';
import type { ApiMessage } from '../messages/types';
import { BotType } from '../users/roles';
import { notifyBotOwner } from './notify-owner';
import { nativePayload, slackPayload } from './payload';
import { parseReply } from './reply';
import type { WebhookTrigger } from './triggers';

export interface JobAttempt {
  attempt: number;
  isLastAttempt: boolean;
}

/** A failure worth another attempt (timeout, connection refused, 5xx); BullMQ backs off and retries. */
export class RetryableWebhookError extends Error {}

/** Client name of the bot's replies, as in Zulip. */
export const REPLY_CLIENT = 'OutgoingWebhookResponse';

interface Delivery {
  realm: Realm;
  bot: User;
  dict: ApiMessage;
}

/**
 * Posts a reply as the bot into the conversation of the triggering message: the same channel and
 * topic, or the same direct-message group. A Redis marker makes a job that runs twice post once.
 */
async function postAsBot(ctx: AppContext, d: Delivery, content: string): Promise<void> {
  const marker = `${ctx.config.redisPrefix}owh-reply:${d.dict.id}:${d.bot.id}`;
  const fresh = await ctx.redis.set(marker, '1', 'EX', 7 * 86400, 'NX');
  if (fresh !== 'OK') return;
  try {
    if (d.dict.type === 'stream') {
      await sendMessage(ctx, {
        sender: d.bot,
        realm: d.realm,
        type: 'stream',
        to: d.dict.stream_id as number,
        topic: d.dict.subject,
        content,
        clientName: REPLY_CLIENT,
      });
    } else {
      const users = Array.isArray(d.dict.display_recipient) ? d.dict.display_recipient : [];
      const to = users.map((u) => u.id).filter((id) => id !== d.bot.id);
      await sendMessage(ctx, {
        sender: d.bot,
        realm: d.realm,
        type: 'private',
        to: to.length ? to : [d.dict.sender_id],
        content,
        clientName: REPLY_CLIENT,
      });
    }
  } catch (err) {
    await ctx.redis.del(marker);
    throw err;
  }
}

/** Zulip's fail_with_message: the bot says in the conversation that it failed. */
const failInConversation = (ctx: AppContext, d: Delivery, message: string) =>
  postAsBot(ctx, d, `Failure! ${message}`);

/**
 * Job handler: re-reads the message and the bot, POSTs the payload to the bot's URL with the
 * configured timeout, and acts on the answer. Transient failures throw for a retry; after the
 * last attempt the conversation and the bot's owner are told, as Zulip does.
 */
export async function deliverOutgoingWebhook(
  ctx: AppContext,
  payload: OutgoingWebhookPayload,
  run: JobAttempt,
): Promise<void> {
  const [message, bot] = await Promise.all([
    ctx.db.message.findUnique({ where: { id: payload.messageId }, include: { realm: true } }),
    ctx.db.user.findUnique({ where: { id: payload.botId }, include: { services: true } }),
  ]);
  const service = bot?.services[0];
  if (!message || !bot || !bot.isActive || bot.botType !== BotType.OUTGOING_WEBHOOK || !service) {
    ctx.log.info('webhook', 'nothing to deliver; message or bot gone', { ...payload });
    return;
  }
  const realm = message.realm;
  const [dict] = await formatMessages(ctx.db, [message], {
    viewer: bot,
    realm,
    applyMarkdown: false,
    clientGravatar: false,
    allowEmptyTopicName: true,
  });
  const d: Delivery = { realm, bot, dict };
  const trigger: WebhookTrigger = message.isChannelMessage ? 'mention' : 'direct_message';

  let request: { body: string; contentType: string };
  if (service.interface === ServiceInterface.SLACK) {
    if (!message.isChannelMessage) {
      await failInConversation(ctx, d, "Slack outgoing webhooks don't support direct messages.");
      return;
    }
    request = {
      body: slackPayload({
        bot,
        service,
        realm,
        config: ctx.config,
        message,
        dict,
        trigger,
      }).toString(),
      contentType: 'application/x-www-form-urlencoded',
    };
  } else {
    request = {
      body: JSON.stringify(nativePayload({ bot, service, message, dict, trigger })),
      contentType: 'application/json',
    };
  }

  const timeoutSeconds = ctx.config.outgoingWebhookTimeoutSeconds;
  const signal = AbortSignal.timeout(timeoutSeconds * 1000);
  let status: number;
  let text: string;
  try {
    const response = await fetch(service.baseUrl, {
      method: 'POST',
      headers: { 'Content-Type': request.contentType, 'User-Agent': 'ZulipOutgoingWebhook' },
      body: request.body,
      signal,
      redirect: 'manual',
    });
    status = response.status;
    text = await response.text();
  } catch (err) {
    const timedOut = signal.aborted;
    const failureMessage = timedOut
      ? `Request timed out after ${timeoutSeconds} seconds.`
      : `When trying to send a request to the webhook service, an exception occurred:\n\`\`\`\n${
          err instanceof Error
            ? ((err.cause as Error | undefined)?.message ?? err.message)
            : String(err)
        }\n\`\`\``;
    if (!run.isLastAttempt) throw new RetryableWebhookError(failureMessage);
    await failInConversation(ctx, d, 'Bot is unavailable');
    await notifyBotOwner(ctx, { realm, bot, dict, notice: { failureMessage } });
    return;
  }

  if (status >= 200 && status < 300) {
    const reply = parseReply(text, service.interface);
    if (reply.kind === 'post') await postAsBot(ctx, d, reply.content);
    if (reply.kind === 'invalid') {
      await failInConversation(ctx, d, reply.reason);
      await notifyBotOwner(ctx, {
        realm,
        bot,
        dict,
        notice: {
          failureMessage: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${reply.reason}`,
          responseContent: text,
        },
      });
    }
    return;
  }
  if (status >= 500 && !run.isLastAttempt) {
    throw new RetryableWebhookError(`Webhook responded with status ${status}`);
  }
  await failInConversation(ctx, d, `Third party responded with ${status}`);
  await notifyBotOwner(ctx, {
    realm,
    bot,
    dict,
    notice: { statusCode: status, responseContent: text || undefined },
  });
}
