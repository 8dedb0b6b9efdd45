import { createHash } from 'node:crypto';
import type { AppContext } from '../../core/context';
import type { Tx } from '../../db/client';
import { lockRow } from '../../db/locks';
import { inTransaction, type EventSink } from '../../events/outbox';
import { Jobs, type EmbedLinksPayload } from '../../jobs';
import { renderMarkdown, type LinkEmbed } from '../../markdown';
import { updateMessageEvent } from '../../protocol/events/update-message';
import { markdownContextFor } from '../markdown-context';
import { Flag, flagNames } from '../messages/flags';
import { groupByFlags } from '../messages/recipient-flags';
import { messageAudience } from '../permissions/message-audience';
import { linkPreview } from './link-preview';

/** Longest link the job takes: longer ones are not previewed. */
const MAX_URL_LENGTH = 2048;

const contentSha256 = (content: string): string =>
  createHash('sha256').update(content, 'utf8').digest('hex');

/**
 * In the transaction that writes a message's content: the job that fetches its links' previews
 * and renders it again with them (Zulip queues `embed_links` the same way). Bots' messages get
 * none, as in Zulip. The job ID names the content, so the same content is fetched once.
 */
export function oweLinkEmbeds(
  events: EventSink,
  message: { id: number; content: string; sentByBot: boolean; linksForPreview: string[] },
): void {
  const urls = message.linksForPreview.filter((url) => url.length <= MAX_URL_LENGTH);
  if (message.sentByBot || urls.length === 0) return;
  const digest = contentSha256(message.content);
  events.owe(Jobs.embedLinks, [
    {
      payload: { messageId: message.id, contentSha256: digest, urls },
      jobId: `embed-links-${message.id}-${digest.slice(0, 16)}`,
    },
  ]);
}

/**
 * Zulip's do_update_embedded_data: the new rendering, and an `update_message` event with
 * `rendering_only` (and no editor) to everyone who can see the message, each with their flags.
 * No edit history: the content is the sender's as it was.
 */
async function writeRendering(
  tx: Tx,
  events: EventSink,
  message: { id: number; realmId: number; content: string },
  html: string,
): Promise<void> {
  await tx.message.update({ where: { id: message.id }, data: { renderedContent: html } });
  const audience = await messageAudience(tx, [message.id]);
  const rows = await tx.userMessage.findMany({
    where: { messageId: message.id, userId: { in: audience } },
    select: { userId: true, flags: true },
  });
  const flagsByUser = new Map(rows.map((r) => [r.userId, Number(r.flags)]));
  const bits = audience.map((id) => flagsByUser.get(id) ?? Flag.read | Flag.historical);
  for (const [flagBits, users] of groupByFlags(audience, bits)) {
    await events.emit(
      message.realmId,
      updateMessageEvent({
        user_id: null,
        edit_timestamp: Math.floor(Date.now() / 1000),
        message_id: message.id,
        message_ids: [message.id],
        flags: flagNames(flagBits),
        rendering_only: true,
        content: message.content,
        rendered_content: html,
      }),
      users,
    );
  }
}

/**
 * The `embed-links` job (Zulip's embed_links worker): each link's preview, from the cache or
 * fetched (link-preview.ts), then, with the message locked and still holding the content the
 * links came from, the message rendered again with them. Nothing is written when the rendering
 * is the same (no link had a preview to show), or the message is gone or was edited since
 * (its edit owes a job of its own).
 */
export async function embedLinks(ctx: AppContext, payload: EmbedLinksPayload): Promise<void> {
  const previews = new Map<string, LinkEmbed | null>();
  for (const url of payload.urls) previews.set(url, await linkPreview(ctx, url));
  if (![...previews.values()].some((p) => p?.image)) return;
  await inTransaction(ctx, async (tx, events) => {
    if (!(await lockRow(tx, 'messages', payload.messageId))) return;
    const message = await tx.message.findUniqueOrThrow({
      where: { id: payload.messageId },
      select: { id: true, realmId: true, content: true, renderedContent: true },
    });
    if (contentSha256(message.content) !== payload.contentSha256) return;
    const realm = await tx.realm.findUniqueOrThrow({ where: { id: message.realmId } });
    const context = await markdownContextFor(tx, ctx.config, realm);
    const rendered = await renderMarkdown(message.content, { ...context, urlEmbedData: previews });
    if (rendered.html === message.renderedContent) return;
    await writeRendering(tx, events, message, rendered.html);
  });
}
