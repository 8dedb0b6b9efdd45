import type MarkdownIt from 'markdown-it';
import { zulipEnv } from './env';
import { escapeAttr } from './escape';

type Token = MarkdownIt.Token;

const IMAGE_URL_RE =
  /^(?:https?:\/\/[^?#]+|\/?user_uploads\/[^?#]+)\.(?:bmp|gif|jpe?g|png|webp)(?:[?#].*)?$/i;

/** Zulip's preview of a linked image (external images go through the /thumbnail proxy). */
function previewHtml(href: string, title: string | undefined): string {
  const titleAttr = title !== undefined ? ` title="${escapeAttr(title)}"` : '';
  let img: string;
  if (/^https?:/i.test(href)) {
    const proxied = `/thumbnail?url=${encodeURIComponent(href)}`;
    img =
      `<img data-src-fullsize="${escapeAttr(`${proxied}&size=full`)}" ` +
      `src="${escapeAttr(`${proxied}&size=thumbnail`)}">`;
  } else {
    img = `<img src="${escapeAttr(href.startsWith('/') ? href : `/${href}`)}">`;
  }
  return `<div class="message_inline_image"><a href="${escapeAttr(href)}"${titleAttr}>${img}</a></div>`;
}

/** Image links in one paragraph: [href, title for named links]. */
function imageLinks(inline: Token): [string, string | undefined][] {
  const out: [string, string | undefined][] = [];
  const children = inline.children ?? [];
  for (let i = 0; i < children.length; i++) {
    const t = children[i];
    if (t.type !== 'link_open') continue;
    const href = String(t.attrGet('href') ?? '');
    if (!IMAGE_URL_RE.test(href)) continue;
    let j = i + 1;
    let text = '';
    while (j < children.length && children[j].type !== 'link_close') text += children[j++].content;
    out.push([href, t.markup === 'linkify' || text === href ? undefined : text]);
  }
  return out;
}

/**
 * Core rule: after each paragraph (outside quotes) that links to images, add Zulip's
 * `message_inline_image` previews, once per URL per message.
 */
function inlineImages(state: MarkdownIt.StateCore): void {
  const env = zulipEnv(state.env);
  const seen = new Set<string>();
  const tokens = state.tokens;
  let quoteDepth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'blockquote_open') quoteDepth++;
    else if (t.type === 'blockquote_close') quoteDepth--;
    if (t.type !== 'inline' || quoteDepth > 0 || tokens[i + 1]?.type !== 'paragraph_close')
      continue;
    const previews: string[] = [];
    for (const [href, title] of imageLinks(t)) {
      if (seen.has(href)) continue;
      seen.add(href);
      previews.push(previewHtml(href, title));
    }
    if (previews.length === 0) continue;
    env.hasImage = true;
    const close = tokens[i + 1];
    const next = tokens[i + 2];
    const inline = close.hidden || next?.type === 'zulip_spoiler_close';
    const block = new state.Token('html_block', '', 0);
    block.content = previews.join('') + (inline ? '' : '\n');
    tokens.splice(i + 2, 0, block);
  }
}

export function inlineImagesPlugin(md: MarkdownIt.MarkdownIt): void {
  md.core.ruler.push('zulip_inline_images', inlineImages);
}
