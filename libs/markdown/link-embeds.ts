import type MarkdownIt from 'markdown-it';
import { zulipEnv } from './env';
import { escapeAttr, escapeText } from './escape';
import { hasMediaPreview, PREVIEW_LIMIT, previewableUrls } from './inline-images';
import type { LinkEmbed, MarkdownContext } from './types';

/**
 * Whether a link may get a page preview: an absolute http(s) URL of another host than the
 * organization's (Zulip has no use for previews of its own pages), that no image, video or
 * YouTube preview already shows.
 */
function isPageLink(href: string, ctx: MarkdownContext): boolean {
  if (!/^https?:\/\/[^/?#]/i.test(href) || hasMediaPreview(href)) return false;
  try {
    return new URL(href).host !== new URL(ctx.realmUrl).host;
  } catch {
    return false;
  }
}

/** A URL as a CSS string, the way Zulip writes it into the image's `background-image`. */
const cssUrl = (url: string): string =>
  `url("${url.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ')}")`;

/**
 * Zulip's add_embed: the image as the background of a link (through the camo proxy when it is
 * on), then the title and the description. No image, no preview, as in Zulip.
 */
function embedHtml(href: string, embed: LinkEmbed, ctx: MarkdownContext): string {
  if (!embed.image) return '';
  const image = ctx.camoUrl ? ctx.camoUrl(embed.image) : embed.image;
  const link = escapeAttr(href);
  let data = '';
  if (embed.title) {
    data +=
      `<div class="message_embed_title"><a href="${link}" title="${escapeAttr(embed.title)}">` +
      `${escapeText(embed.title)}</a></div>`;
  }
  if (embed.description) {
    data += `<div class="message_embed_description">${escapeText(embed.description)}</div>`;
  }
  return (
    `<div class="message_embed"><a class="message_embed_image" href="${link}" ` +
    `style="${escapeAttr(`background-image: ${cssUrl(image)}`)}"></a>` +
    `<div class="data-container">${data}</div></div>`
  );
}

/**
 * Core rule, after the image previews: each link to a web page (outside quotes) is either
 * listed for the embed job to fetch (`linksForPreview`) or, on the job's second rendering with
 * the fetched data, previewed at the end of the message, as Zulip's InlineInterestingLinkProcessor
 * does. Messages over Zulip's preview limit get none.
 */
function linkEmbeds(state: MarkdownIt.StateCore): void {
  const env = zulipEnv(state.env);
  const ctx = env.ctx;
  if (!ctx.urlEmbedPreview) return;
  const urls = previewableUrls(state.tokens);
  if (urls.length > PREVIEW_LIMIT) return;
  let html = '';
  for (const href of urls) {
    if (!isPageLink(href, ctx)) continue;
    const data = ctx.urlEmbedData;
    if (!data?.has(href)) {
      env.linksForPreview.add(href);
      continue;
    }
    const embed = data.get(href);
    if (embed) html += embedHtml(href, embed, ctx);
  }
  if (html === '') return;
  const block = new state.Token('html_block', '', 0);
  block.content = `${html}\n`;
  state.tokens.push(block);
}

export function linkEmbedsPlugin(md: MarkdownIt.MarkdownIt): void {
  md.core.ruler.push('zulip_link_embeds', linkEmbeds);
}
