import type MarkdownIt from 'markdown-it';
import { escapeAttr, escapeText } from './escape';

/** Parses the body of `<time:...>`: Unix seconds, ISO 8601, or a common English date. */
export function parseTimestamp(text: string): Date | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) {
    const d = new Date(Number(trimmed) * 1000);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  let s = trimmed;
  if (/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(s)) s = `${s.replace(' ', 'T')}Z`;
  else if (!/^\d{4}-\d\d-\d\d/.test(s)) {
    s = s
      .replace(/(\d)(st|nd|rd|th)\b/gi, '$1')
      .replace(/,/g, ' ')
      .replace(/(\d)(am|pm)\b/gi, '$1 $2');
    if (!/(?:\bUTC|\bGMT|Z|[+-]\d\d:?\d\d)$/i.test(s)) s = `${s} UTC`;
  }
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

export function renderTimestamp(text: string): string {
  const date = parseTimestamp(text);
  if (date === undefined) {
    return `<span class="timestamp-error">Invalid time format: ${escapeText(text)}</span>`;
  }
  const iso = date.toISOString().replace(/\.000Z$/, 'Z');
  return `<time datetime="${escapeAttr(iso)}">${escapeText(text)}</time>`;
}

const TIMESTAMP_RE = /<time:([^>]*?)>/y;

function timestamp(state: MarkdownIt.StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  TIMESTAMP_RE.lastIndex = state.pos;
  const m = TIMESTAMP_RE.exec(state.src);
  if (!m) return false;
  if (!silent) state.push('html_inline', '', 0).content = renderTimestamp(m[1]);
  state.pos += m[0].length;
  return true;
}

export function timestampPlugin(md: MarkdownIt.MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_timestamp', timestamp);
}
