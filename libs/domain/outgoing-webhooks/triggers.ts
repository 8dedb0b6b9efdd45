import { Prisma } from '../../../generated/prisma/client';
import { enqueueJob, JobName } from '../../jobs';
import type { AppContext } from '../context';
import { BotType } from '../users/roles';

/** Flag bit of UserMessage.flags: the user (here the bot) was mentioned by name. */
const MENTIONED = 8;

export type WebhookTrigger = 'mention' | 'direct_message';

export interface TriggeredBot {
  botId: number;
  trigger: WebhookTrigger;
}

/**
 * Spec 4.22: an active outgoing-webhook bot is triggered by a channel message that mentions it,
 * or by a direct message it receives. Messages sent by bots never trigger (as in Zulip, so that
 * bots cannot loop on each other), which also covers a bot's own replies.
 */
export async function triggeredBots(ctx: AppContext, messageId: number): Promise<TriggeredBot[]> {
  const rows = await ctx.db.$queryRaw<{ bot_id: number; is_channel: boolean }[]>(Prisma.sql`
    SELECT u.id AS bot_id, m.is_channel_message AS is_channel
    FROM messages m
    JOIN users s ON s.id = m.sender_id
    JOIN user_messages um ON um.message_id = m.id
    JOIN users u ON u.id = um.user_id
    WHERE m.id = ${messageId}
      AND NOT s.is_bot
      AND u.is_bot AND u.is_active AND u.bot_type = ${BotType.OUTGOING_WEBHOOK}
      AND u.id <> m.sender_id
      AND (NOT m.is_channel_message OR (um.flags & ${MENTIONED}) <> 0)
    ORDER BY u.id`);
  return rows.map((r) => ({
    botId: r.bot_id,
    trigger: r.is_channel ? 'mention' : 'direct_message',
  }));
}

export const outgoingWebhookJobId = (messageId: number, botId: number) =>
  `owh-${messageId}-${botId}`;

/**
 * Called after a message commits: one job per (message, bot), with a stable ID so a repeated
 * call enqueues nothing new. Enqueue failures are logged, never fail the send.
 */
export async function enqueueOutgoingWebhooks(ctx: AppContext, messageId: number): Promise<number> {
  try {
    const bots = await triggeredBots(ctx, messageId);
    for (const { botId } of bots) {
      await enqueueJob(
        ctx,
        JobName.OUTGOING_WEBHOOK,
        { messageId, botId },
        { jobId: outgoingWebhookJobId(messageId, botId) },
      );
    }
    return bots.length;
  } catch (err) {
    ctx.log.error('webhook', 'could not enqueue outgoing webhooks', {
      messageId,
      error: err instanceof Error ? err.message : String(err),
    });
    return 0;
  }
}
