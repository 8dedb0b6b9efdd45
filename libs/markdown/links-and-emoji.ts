import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';
import { findEmoticons, findUnicodeEmoji, namedEmojiHtml } from './emoji';
import { zulipEnv, type ZulipEnv } from './env';
import { findLinkifierMatches, removeOverlaps } from './linkifiers';
import { findWebLinks } from './web-links';

type Token = MarkdownIt.Token;

const ALLOWED_SCHEMES = new Set(['http', 'https', 'ftp', 'mailto', 'tel', 'sms']);

/** Zulip's sanitize_url: only a fixed set of schemes, or a relative URL. */
export function isSafeUrl(url: string): boolean {
  const trimmed = url.trim();
  const [, scheme] = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed) ?? [];
  if (scheme === undefined) return !/^[^/?#]*:/.test(trimmed);
  return ALLOWED_SCHEMES.has(scheme.toLowerCase());
}

/** Zulip's rewrite_local_links_to_relative: realm narrow and upload links become relative. */
export function rewriteLocalLink(href: string, realmUrl: string): string {
  const prefix = `${realmUrl.replace(/\/+$/, '')}/`;
  if (href.startsWith(`${prefix}#`) || href.startsWith(`${prefix}user_uploads/`)) {
    return href.slice(prefix.length);
  }
  return href;
}

const IMAGE_EXTENSIONS = /\.(?:bmp|gif|jpe?g|png|webp|avif)(?:[?#].*)?$/i;

export function noteLink(env: ZulipEnv, href: string): void {
  env.hasLink = true;
  if (/^(?:\/|https?:\/\/[^/]+\/)?user_uploads\//.test(href)) {
    env.hasAttachment = true;
    if (IMAGE_EXTENSIONS.test(href)) env.hasImage = true;
  }
}

// `:name:` emoji (Zulip: `(?<!\w):[\w\-\+]+:`); the name is looked up at render time.
const NAMED_EMOJI_RE = /:([\p{L}\p{N}_+-]+):/uy;

function namedEmoji(state: MarkdownIt.StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */) return false;
  NAMED_EMOJI_RE.lastIndex = state.pos;
  const m = NAMED_EMOJI_RE.exec(state.src);
  if (!m) return false;
  const html = namedEmojiHtml(at(m, 1), zulipEnv(state.env).ctx.realmEmoji);
  if (html === undefined) return false;
  if (!silent) state.push('html_inline', '', 0).content = html;
  state.pos += m[0].length;
  return true;
}

interface Replacement {
  index: number;
  length: number;
  make: (T: typeof MarkdownIt.Token) => Token[];
}

function linkTokens(T: typeof MarkdownIt.Token, href: string, text: string): Token[] {
  const open = new T('link_open', 'a', 1);
  open.attrs = [['href', href]];
  open.markup = 'linkify';
  const body = new T('text', '', 0);
  body.content = text;
  const close = new T('link_close', 'a', -1);
  close.markup = 'linkify';
  return [open, body, close];
}

function htmlToken(T: typeof MarkdownIt.Token, html: string): Token[] {
  const t = new T('html_inline', '', 0);
  t.content = html;
  return [t];
}

/** Links (linkifiers and bare URLs) and emoji found in one text token. */
function replacementsFor(text: string, env: ZulipEnv, insideLink: boolean): Replacement[] {
  const out: Replacement[] = [];
  if (!insideLink) {
    const links = removeOverlaps([
      ...findLinkifierMatches(text, env.ctx.linkifiers),
      ...findWebLinks(text).map((l) => ({
        index: l.index,
        text: l.text,
        url: l.href,
        // Zulip runs its bare-URL pattern before the linkifiers, so URLs win overlaps.
        precedence: -1,
      })),
    ]);
    for (const l of links) {
      const href = rewriteLocalLink(l.url, env.ctx.realmUrl);
      if (!isSafeUrl(href)) continue;
      noteLink(env, href);
      out.push({ index: l.index, length: l.text.length, make: (T) => linkTokens(T, href, l.text) });
    }
  }
  const emoji = [
    ...findUnicodeEmoji(text),
    ...(env.ctx.translateEmoticons ? findEmoticons(text) : []),
  ];
  for (const e of emoji) {
    const overlaps = out.some((r) => e.index < r.index + r.length && r.index < e.index + e.length);
    if (!overlaps)
      out.push({ index: e.index, length: e.length, make: (T) => htmlToken(T, e.html) });
  }
  return out.sort((a, b) => a.index - b.index);
}

function splitText(state: MarkdownIt.StateCore, token: Token, reps: Replacement[]): Token[] {
  const out: Token[] = [];
  let last = 0;
  const text = token.content;
  for (const r of reps) {
    if (r.index < last) continue;
    if (r.index > last) {
      const t = new state.Token('text', '', 0);
      t.content = text.slice(last, r.index);
      out.push(t);
    }
    out.push(...r.make(state.Token));
    last = r.index + r.length;
  }
  if (last < text.length) {
    const t = new state.Token('text', '', 0);
    t.content = text.slice(last);
    out.push(t);
  }
  for (const t of out) t.level = token.level;
  return out;
}

/** Core rule run after inline parsing: bare links, linkifiers, Unicode emoji, link fix-ups. */
function textPass(state: MarkdownIt.StateCore): void {
  const env = zulipEnv(state.env);
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children = block.children;
    const result: Token[] = [];
    let linkDepth = 0;
    for (let i = 0; i < children.length; i++) {
      const token = at(children, i);
      if (token.type === 'link_open') {
        linkDepth++;
        const href = rewriteLocalLink(String(token.attrGet('href') ?? ''), env.ctx.realmUrl);
        token.attrSet('href', href);
        noteLink(env, href);
        // `[  ](url)` shows the URL itself.
        let j = i + 1;
        while (j < children.length && at(children, j).type !== 'link_close') j++;
        const inner = children.slice(i + 1, j);
        if (inner.every((t) => t.type === 'text' && t.content.trim() === '')) {
          const t = new state.Token('text', '', 0);
          t.content = href;
          result.push(token, t);
          i = j - 1;
          continue;
        }
      } else if (token.type === 'link_close') {
        linkDepth--;
      } else if (token.type === 'text') {
        const reps = replacementsFor(token.content, env, linkDepth > 0);
        if (reps.length > 0) {
          result.push(...splitText(state, token, reps));
          continue;
        }
      }
      result.push(token);
    }
    block.children = result;
  }
}

export function textPassPlugin(md: MarkdownIt.MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_named_emoji', namedEmoji);
  md.core.ruler.push('zulip_text_pass', textPass);
  md.validateLink = isSafeUrl;
  md.normalizeLink = (url) => url.trim();
  md.normalizeLinkText = (url) => url;
}
