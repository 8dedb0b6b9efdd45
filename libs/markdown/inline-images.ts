import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';
import { zulipEnv } from './env';
import { escapeAttr } from './escape';
import type { MarkdownContext } from './types';

type Token = MarkdownIt.Token;

const IMAGE_URL_RE =
  /^(?:https?:\/\/[^?#]+|\/?user_uploads\/[^?#]+)\.(?:bmp|gif|jpe?g|png|webp)(?:[?#].*)?$/i;

/** Zulip previews only the containers every browser plays (mimetypes video/mp4, video/webm). */
const VIDEO_PATH_RE = /\.(?:mp4|webm)$/i;

const YOUTUBE_HOSTS = new Set([
  'm.youtube.com',
  'www.youtube.com',
  'www.youtube-nocookie.com',
  'youtube.com',
  'youtube-nocookie.com',
]);

function parseUrl(href: string): URL | undefined {
  try {
    return new URL(href, 'http://relative.invalid');
  } catch {
    return undefined;
  }
}

function isVideo(href: string): boolean {
  const url = parseUrl(href);
  return url !== undefined && VIDEO_PATH_RE.test(url.pathname);
}

/** Zulip's youtube_id: the video id from a watch, embed, shorts or youtu.be URL, no fetch. */
export function youtubeId(href: string): string | undefined {
  if (!/^https?:\/\//i.test(href)) return undefined;
  const url = parseUrl(href);
  if (url === undefined) return undefined;
  let id: string | null | undefined;
  if (YOUTUBE_HOSTS.has(url.hostname)) {
    if (url.pathname === '/watch' || url.pathname === '/watch_popup')
      id = url.searchParams.get('v');
    else if (url.pathname === '/watch_videos') {
      id = url.searchParams.get('video_ids')?.split(',', 1)[0];
    } else if (/^\/(?:embed|shorts|v)\//.test(url.pathname)) id = url.pathname.split('/')[2];
  } else if (url.hostname === 'youtu.be') {
    id = url.pathname.slice(1);
  }
  return id && /^[0-9A-Za-z_-]+$/.test(id) ? id : undefined;
}

function titleAttr(title: string | undefined): string {
  return title !== undefined ? ` title="${escapeAttr(title)}"` : '';
}

/** Zulip's get_actual_image_url: a GitHub "blob" page shows its raw file. */
function actualImageUrl(href: string): string {
  const url = parseUrl(href);
  if (!url || !(url.hostname === 'github.com' || url.hostname.endsWith('.github.com'))) return href;
  const path = url.pathname.split('/');
  if (path.length <= 3 || path[3] !== 'blob') return href;
  return `https://raw.githubusercontent.com${[...path.slice(0, 3), ...path.slice(4)].join('/')}`;
}

/** How a preview loads media: `camo` for external URLs when the proxy is on, else direct. */
interface MediaSource {
  camo: ((url: string) => string) | undefined;
  /** Zulip's is_static_or_current_realm_url: relative and own-origin URLs skip the proxy. */
  own(url: string): boolean;
}

function mediaSource(ctx: MarkdownContext): MediaSource {
  const realm = parseUrl(ctx.realmUrl);
  return {
    camo: ctx.camoUrl,
    own(url) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('//')) return true;
      const parsed = parseUrl(url);
      return parsed?.host === realm?.host && parsed?.protocol === realm?.protocol;
    },
  };
}

/** Zulip's get_camo_url for a preview's media, where the proxy is on and the URL is external. */
function proxied(media: MediaSource, url: string): string {
  return media.camo && !media.own(url) ? media.camo(url) : url;
}

/**
 * Zulip's preview of a linked image. External images load through the camo proxy when it is
 * on, else through Zulip's /thumbnail form.
 */
function imageHtml(href: string, title: string | undefined, media: MediaSource): string {
  let img: string;
  if (/^https?:/i.test(href) && media.camo && !media.own(href)) {
    img = `<img src="${escapeAttr(media.camo(actualImageUrl(href)))}">`;
  } else if (/^https?:/i.test(href)) {
    const proxied = `/thumbnail?url=${encodeURIComponent(actualImageUrl(href))}`;
    img =
      `<img data-src-fullsize="${escapeAttr(`${proxied}&size=full`)}" ` +
      `src="${escapeAttr(`${proxied}&size=thumbnail`)}">`;
  } else {
    img = `<img src="${escapeAttr(href.startsWith('/') ? href : `/${href}`)}">`;
  }
  return `<div class="message_inline_image"><a href="${escapeAttr(href)}"${titleAttr(title)}>${img}</a></div>`;
}

/** Zulip's add_video: the link wraps a <video> that loads only its metadata. */
function videoHtml(href: string, title: string | undefined, media: MediaSource): string {
  return (
    `<div class="message_inline_image message_inline_video"><a href="${escapeAttr(href)}"${titleAttr(title)}>` +
    `<video preload="metadata" src="${escapeAttr(proxied(media, href))}"></video></a></div>`
  );
}

/** Zulip's YouTube preview: the thumbnail is built from the video id, without a fetch. */
function youtubeHtml(href: string, id: string, media: MediaSource): string {
  const thumbnail = proxied(media, `https://i.ytimg.com/vi/${id}/mqdefault.jpg`);
  return (
    `<div class="youtube-video message_inline_image"><a data-id="${escapeAttr(id)}" ` +
    `href="${escapeAttr(href)}"><img src="${escapeAttr(thumbnail)}"></a></div>`
  );
}

interface FoundLink {
  href: string;
  /** The link's text when it differs from its URL (Zulip shows it as the preview's title). */
  title: string | undefined;
  /** The link is all its paragraph or list item holds, so Zulip shows only the preview. */
  alone: boolean;
}

function linksIn(inline: Token): FoundLink[] {
  const out: FoundLink[] = [];
  const children = inline.children ?? [];
  for (const [i, t] of children.entries()) {
    if (t.type !== 'link_open') continue;
    const href = String(t.attrGet('href') ?? '');
    let j = i + 1;
    let text = '';
    while (j < children.length && at(children, j).type !== 'link_close') {
      text += at(children, j++).content;
    }
    const title = t.markup === 'linkify' || text === href ? undefined : text;
    const alone = i === 0 && j === children.length - 1 && title === undefined;
    out.push({ href, title, alone });
  }
  return out;
}

/**
 * Zulip's preview for one link: an image, a video, or a YouTube thumbnail. Returns the HTML and
 * whether the link itself goes away (never for YouTube, whose link stays to be clicked).
 */
function preview(
  link: FoundLink,
  media: MediaSource,
): { html: string; replacesLink: boolean; image: boolean } | null {
  if (isVideo(link.href)) {
    return {
      html: videoHtml(link.href, link.title, media),
      replacesLink: link.alone,
      image: false,
    };
  }
  if (IMAGE_URL_RE.test(link.href)) {
    return { html: imageHtml(link.href, link.title, media), replacesLink: link.alone, image: true };
  }
  const id = youtubeId(link.href);
  if (id !== undefined)
    return { html: youtubeHtml(link.href, id, media), replacesLink: false, image: true };
  return null;
}

/** Whether a link gets an image, video or YouTube preview rather than a page preview. */
export const hasMediaPreview = (href: string): boolean =>
  isVideo(href) || IMAGE_URL_RE.test(href) || youtubeId(href) !== undefined;

/** Zulip's INLINE_PREVIEW_LIMIT_PER_MESSAGE: past it, a message gets no previews at all. */
export const PREVIEW_LIMIT = 24;

/**
 * The distinct URLs a message links outside quotes, in order: what Zulip counts against the limit
 * and previews.
 */
export function previewableUrls(tokens: Token[]): string[] {
  const urls = new Set<string>();
  let quoteDepth = 0;
  for (const t of tokens) {
    if (t.type === 'blockquote_open') quoteDepth++;
    else if (t.type === 'blockquote_close') quoteDepth--;
    else if (t.type === 'inline' && quoteDepth === 0) {
      for (const c of t.children ?? []) {
        if (c.type === 'link_open') urls.add(String(c.attrGet('href') ?? ''));
      }
    }
  }
  return [...urls];
}

/**
 * Core rule: after each paragraph (outside quotes) that links to images or videos, add Zulip's
 * previews, once per URL per message. A paragraph that is only such a link gives way to its
 * preview, as in Zulip's get_inlining_information.
 */
function inlineImages(state: MarkdownIt.StateCore): void {
  const env = zulipEnv(state.env);
  const media = mediaSource(env.ctx);
  const seen = new Set<string>();
  const tokens = state.tokens;
  if (previewableUrls(tokens).length > PREVIEW_LIMIT) return;
  let quoteDepth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = at(tokens, i);
    const close = tokens[i + 1];
    if (t.type === 'blockquote_open') quoteDepth++;
    else if (t.type === 'blockquote_close') quoteDepth--;
    if (t.type !== 'inline' || quoteDepth > 0 || close?.type !== 'paragraph_close') continue;
    const previews: string[] = [];
    let removeParagraph = false;
    for (const link of linksIn(t)) {
      if (seen.has(link.href)) continue;
      seen.add(link.href);
      const p = preview(link, media);
      if (p === null) continue;
      previews.push(p.html);
      if (p.image) env.hasImage = true;
      if (p.replacesLink) removeParagraph = true;
    }
    if (previews.length === 0) continue;
    const tight = close.hidden;
    const inline = tight || tokens[i + 2]?.type === 'zulip_spoiler_close';
    const block = new state.Token('html_block', '', 0);
    block.content = previews.join('') + (inline ? '' : '\n');
    tokens.splice(i + 2, 0, block);
    if (removeParagraph) {
      // In a tight list item only the link goes; elsewhere the whole paragraph.
      if (tight) t.children = [];
      else {
        tokens.splice(i - 1, 3);
        i -= 2;
      }
    }
  }
}

export function inlineImagesPlugin(md: MarkdownIt.MarkdownIt): void {
  md.core.ruler.push('zulip_inline_images', inlineImages);
}
