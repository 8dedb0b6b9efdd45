import { Prisma } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { Jobs, writeJobs } from '../../jobs';
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
 * or by a direct message it receives. As in Zulip, which counts service bots among the users a
 * message may mention and not only among its recipients, a bot mentioned by name in a channel it
 * is not subscribed to is triggered too (`mentionedUserIds`: the rendering's user mentions).
 * Messages sent by bots never trigger (so that bots cannot loop on each other), which also
 * covers a bot's own replies.
 */
export async function triggeredBots(
  db: Db | Tx,
  messageId: number,
  mentionedUserIds: readonly number[] = [],
): Promise<TriggeredBot[]> {
  const rows = await db.$queryRaw<{ bot_id: number; is_channel: boolean }[]>(Prisma.sql`
    WITH candidates(user_id, is_recipient, is_mentioned) AS (
      SELECT user_id, true, (flags & ${MENTIONED}) <> 0 FROM user_messages
      WHERE message_id = ${messageId}
      UNION ALL
      SELECT id, false, true FROM unnest(${[...mentionedUserIds]}::int[]) AS id
    )
    SELECT DISTINCT u.id AS bot_id, m.is_channel_message AS is_channel
    FROM messages m
    JOIN users s ON s.id = m.sender_id
    JOIN candidates c ON true
    JOIN users u ON u.id = c.user_id
    WHERE m.id = ${messageId}
      AND NOT s.is_bot
      AND u.realm_id = m.realm_id
      AND u.is_bot AND u.is_active AND u.bot_type = ${BotType.OUTGOING_WEBHOOK}
      AND u.id <> m.sender_id
      AND CASE WHEN m.is_channel_message THEN c.is_mentioned ELSE c.is_recipient END
    ORDER BY u.id`);
  return rows.map((r) => ({
    botId: r.bot_id,
    trigger: r.is_channel ? 'mention' : 'direct_message',
  }));
}

/**
 * Whether a new message can trigger any bot at all, known without a query: never when a bot
 * sent it, and in a channel only when it mentions a user or a group (a mention is what
 * `triggeredBots` looks for there). Most channel messages mention no one, and skip its query.
 */
export function mayTriggerBots(message: {
  sender: { isBot: boolean };
  isChannelMessage: boolean;
  mentionedUserIds: readonly number[];
  mentionedGroupIds: readonly number[];
}): boolean {
  if (message.sender.isBot) return false;
  if (!message.isChannelMessage) return true;
  return message.mentionedUserIds.length > 0 || message.mentionedGroupIds.length > 0;
}

export const outgoingWebhookJobId = (messageId: number, botId: number) =>
  `owh-${messageId}-${botId}`;

/**
 * In the message's transaction: one job per (message, triggered bot), with a stable ID, so the
 * calls exist exactly when the message does. Called by the send itself (writeMessage).
 */
export async function writeOutgoingWebhookJobs(
  tx: Tx,
  messageId: number,
  mentionedUserIds: readonly number[] = [],
): Promise<number> {
  const bots = await triggeredBots(tx, messageId, mentionedUserIds);
  await writeJobs(
    tx,
    Jobs.outgoingWebhook,
    bots.map(({ botId }) => ({
      payload: { messageId, botId },
      jobId: outgoingWebhookJobId(messageId, botId),
    })),
  );
  return bots.length;
}
