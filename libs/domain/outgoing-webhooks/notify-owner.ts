import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import type { ApiMessage } from '../messages/types';
import { realmUrl } from '../realms/realm-url';
import { postToOwner, type Delivery } from './post-as-bot';
import { reprBytes, reprText } from './python-repr';

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

/** Why the owner is told; the fields of Zulip's notify_bot_owner, first match wins. */
export interface OwnerNotice {
  exception?: { type: string; message: string };
  failureMessage?: string;
  statusCode?: number;
  /** Raw bytes of an error response, or the text of an unusable reply; empty means none. */
  responseContent?: Uint8Array | string;
}

/** Zulip's notify_bot_owner text, word for word. */
export function ownerNoticeText(link: string, botName: string, notice: OwnerNotice): string {
  let text = `[A message](${link}) to your bot @_**${botName}** triggered an outgoing webhook.`;
  if (notice.exception) {
    text += `\nWhen trying to send a request to the webhook service, an exception of type ${notice.exception.type} occurred:\n\`\`\`\n${notice.exception.message}\n\`\`\``;
  } else if (notice.failureMessage) {
    text += `\n${notice.failureMessage}`;
  } else if (notice.statusCode === 407) {
    text += '\nThe URL configured for the webhook is for a private or disallowed network.';
  } else if (notice.statusCode) {
    text += `\nThe webhook got a response with status code *${notice.statusCode}*.`;
  }
  const content = notice.responseContent;
  if (content !== undefined && content.length > 0) {
    const quoted = typeof content === 'string' ? reprText(content) : reprBytes(content);
    text += `\nThe response contains the following payload:\n\`\`\`\n${quoted}\n\`\`\``;
  }
  return text;
}

/** Tells the bot's owner why the webhook failed: a direct message from the bot itself. */
export async function notifyBotOwner(
  ctx: AppContext,
  d: Delivery,
  notice: OwnerNotice,
): Promise<void> {
  if (d.bot.botOwnerId === null) return;
  const owner = await ctx.db.user.findUnique({ where: { id: d.bot.botOwnerId } });
  if (!owner || !owner.isActive) return;
  const text = ownerNoticeText(messageLink(ctx, d.realm, d.dict), d.bot.fullName, notice);
  await postToOwner(ctx, d, owner, text);
}
