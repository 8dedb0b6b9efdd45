import type { Message, Service } from '../../../generated/prisma/client';
import type { OutgoingWebhookPayload } from '../../jobs';
import { ApiError } from '../../core/errors';
import { countWebhookCall } from '../../metrics';
import { addressPolicy } from '../../net/address-policy';
import { ServiceInterface } from '../bots/service-token';
import type { AppContext } from '../../core/context';
import { formatMessages } from '../messages/format-message';
import { BotType } from '../users/roles';
import { callBot, type BotRequest, type CallOutcome } from './call-bot';
import { notifyBotOwner } from './notify-owner';
import { nativePayload, slackPayload } from './payload';
import { postInConversation, type Delivery } from './post-as-bot';
import { parseReply } from './reply';
import type { WebhookTrigger } from './triggers';
import { at } from '../../core/at';

export interface JobAttempt {
  attempt: number;
  isLastAttempt: boolean;
}

/** A timeout or connection error: BullMQ backs off and retries (Zulip's request_retry). */
export class RetryableWebhookError extends Error {}

/**
 * Zulip's fail_with_message: the bot says in the conversation that it failed. When the
 * conversation can no longer take the message (channel gone), there is nowhere to say it.
 */
async function failInConversation(ctx: AppContext, d: Delivery, message: string): Promise<void> {
  try {
    await postInConversation(ctx, d, `Failure! ${message}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ctx.log.info('webhook', 'could not post the failure into the conversation', {
      messageId: d.dict.id,
      reason: err.message,
    });
  }
}

/**
 * Job handler (Zulip's do_rest_call): re-reads the message and the bot, POSTs the payload to
 * the bot's URL and acts on the answer. A timeout or connection error is retried; after the
 * last attempt the bot is "unavailable" in the conversation and its owner is told why. An error
 * status, an unusable reply or any other exception is reported at once, without retries.
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
  const formatted = await formatMessages(ctx.db, [message], {
    viewer: bot,
    realm,
    applyMarkdown: false,
    clientGravatar: false,
    allowEmptyTopicName: true,
  });
  const d: Delivery = { realm, bot, dict: at(formatted, 0) };
  const request = await botRequest(ctx, d, { message, service });
  if (!request) return;
  const outcome = await callBot(service.baseUrl, request, {
    timeoutSeconds: ctx.config.outgoingWebhookTimeoutSeconds,
    policy: addressPolicy(ctx.config.outgoingWebhookAllowedHosts),
  });
  countWebhookCall(outcome);
  await actOnOutcome(ctx, d, { outcome, run, message, service });
}

/** What the bot's interface posts to it; null (told in the conversation) when it cannot. */
async function botRequest(
  ctx: AppContext,
  d: Delivery,
  { message, service }: { message: Message; service: Service },
): Promise<BotRequest | null> {
  const { realm, bot, dict } = d;
  const trigger: WebhookTrigger = message.isChannelMessage ? 'mention' : 'direct_message';
  if (service.interface !== ServiceInterface.SLACK) {
    return {
      body: JSON.stringify(nativePayload({ bot, service, message, dict, trigger })),
      contentType: 'application/json',
    };
  }
  if (!message.isChannelMessage) {
    await failInConversation(ctx, d, "Slack outgoing webhooks don't support direct messages.");
    return null;
  }
  return {
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
}

/** Acts on the bot's answer: its reply posted, or the failure told and retried or reported. */
async function actOnOutcome(
  ctx: AppContext,
  d: Delivery,
  call: { outcome: CallOutcome; run: JobAttempt; message: Message; service: Service },
): Promise<void> {
  const { outcome, run, message, service } = call;
  if (outcome.kind === 'denied') {
    // What Zulip's egress proxy (Smokescreen) answers for such an address: a 407, reported in
    // the conversation and to the owner, without retries.
    ctx.log.warn('webhook', 'bot URL is on a denied network', { messageId: message.id });
    await failInConversation(ctx, d, 'Third party responded with 407');
    await notifyBotOwner(ctx, d, { statusCode: 407 });
    return;
  }

  if (outcome.kind === 'timeout' || outcome.kind === 'connection') {
    const failureMessage =
      outcome.kind === 'timeout'
        ? `Request timed out after ${ctx.config.outgoingWebhookTimeoutSeconds} seconds.`
        : 'A connection error occurred. Is my bot server down?';
    if (!run.isLastAttempt) throw new RetryableWebhookError(failureMessage);
    await failInConversation(ctx, d, 'Bot is unavailable');
    await notifyBotOwner(ctx, d, { failureMessage });
    return;
  }
  if (outcome.kind === 'exception') {
    await failInConversation(
      ctx,
      d,
      `An exception of type *${outcome.type}* occurred for message \`${message.content}\`! See the Zulip server logs for more information.`,
    );
    await notifyBotOwner(ctx, d, { exception: outcome });
    return;
  }

  const { status, body } = outcome;
  if (status >= 200 && status < 300) {
    const text = body.toString('utf8');
    const reply = parseReply(text, service.interface);
    if (reply.kind === 'post') await postInConversation(ctx, d, reply.content);
    if (reply.kind === 'invalid') {
      await failInConversation(ctx, d, reply.reason);
      await notifyBotOwner(ctx, d, {
        failureMessage: `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${reply.reason}`,
        responseContent: text,
      });
    }
    return;
  }
  ctx.log.warn('webhook', 'bot answered with an error status', { messageId: message.id, status });
  await failInConversation(ctx, d, `Third party responded with ${status}`);
  await notifyBotOwner(ctx, d, { statusCode: status, responseContent: body });
}
