import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../context';
import type { ApiMessage } from '../messages/types';
import { sendMessage } from '../messages/send-message';
import { findNotificationBot } from '../bots/notification-bot';
import { realmUrl } from '../realms/realm-url';

/** Zulip's hash encoding for narrow URLs: percent-encoding with '.' instead of '%'. */
const hashEncode = (text: string) =>
  encodeURIComponent(text)
    .replace(/[.()'!*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%/g, '.');

export function messageLink(
  ctx: AppContext,
  realm: Pick<Realm, 'stringId'>,
  dict: ApiMessage,
): string {
  const base = `${realmUrl(realm.stringId, ctx.config)}/#narrow`;
  if (dict.type === 'stream') {
    const slug = hashEncode(String(dict.display_recipient).replace(/ /g, '-'));
    return `${base}/channel/${dict.stream_id}-${slug}/topic/${hashEncode(dict.subject)}/near/${dict.id}`;
  }
  const users = Array.isArray(dict.display_recipient) ? dict.display_recipient : [];
  const ids = users.map((u) => u.id).sort((a, b) => a - b);
  return `${base}/dm/${ids.join(',')}-${ids.length > 2 ? 'group' : 'dm'}/near/${dict.id}`;
}

export interface OwnerNotice {
  statusCode?: number;
  failureMessage?: string;
  responseContent?: string;
}

/** Zulip's notify_bot_owner text. */
export function ownerNoticeText(link: string, botName: string, notice: OwnerNotice): string {
  let text = `[A message](${link}) to your bot @_**${botName}** triggered an outgoing webhook.`;
  if (notice.failureMessage) text += `\n${notice.failureMessage}`;
  else if (notice.statusCode) {
    text += `\nThe webhook got a response with status code *${notice.statusCode}*.`;
  }
  if (notice.responseContent) {
    text += `\nThe response contains the following payload:\n\`\`\`\n'${notice.responseContent}'\n\`\`\``;
  }
  return text;
}

/** Tells the bot's owner, by a direct message from the notification bot, why the webhook failed. */
export async function notifyBotOwner(
  ctx: AppContext,
  input: { realm: Realm; bot: User; dict: ApiMessage; notice: OwnerNotice },
): Promise<void> {
  const { realm, bot } = input;
  if (bot.botOwnerId === null) return;
  const [owner, notificationBot] = await Promise.all([
    ctx.db.user.findUnique({ where: { id: bot.botOwnerId } }),
    findNotificationBot(ctx.db, realm.id),
  ]);
  if (!owner || !owner.isActive || !notificationBot) return;
  await sendMessage(ctx, {
    sender: notificationBot,
    realm,
    type: 'private',
    to: [owner.id],
    content: ownerNoticeText(messageLink(ctx, realm, input.dict), bot.fullName, input.notice),
    clientName: 'Internal',
  });
}
