import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';
import { escapeAttr, escapeText } from './escape';
import { COMMON_TIME_ZONES } from './time-zones';

/** A time of day in the text: dateutil only reads a zone name that follows one. */
const HAS_TIME_RE = /\d:\d\d|\d\s*[ap]\.?m\b/i;

/** Capital words dateutil reads as something other than a zone. */
const NOT_ZONES = new Set([
  'A',
  'P',
  'AM',
  'PM',
  'T',
  'AT',
  'ON',
  'OF',
  'AND',
  'THE',
  'JAN',
  'FEB',
  'MAR',
  'APR',
  'MAY',
  'JUN',
  'JUL',
  'AUG',
  'SEP',
  'SEPT',
  'OCT',
  'NOV',
  'DEC',
  'MON',
  'TUE',
  'TUES',
  'WED',
  'THU',
  'THUR',
  'THURS',
  'FRI',
  'SAT',
  'SUN',
]);

/**
 * A trailing zone as dateutil (with Zulip's tzinfos) reads it: a known abbreviation, UTC/GMT/Z
 * optionally followed by a POSIX-style offset (`UTC+3` means three hours *behind* UTC, as in
 * dateutil), or an unknown capital abbreviation, which dateutil ignores (the time stays UTC).
 */
const ZONE_SUFFIX_RE = /^(.*\S)\s+([A-Z]{1,5})(?:\s*([+-])(\d\d?)(?::?(\d\d))?)?$/;

function splitZone(text: string): { rest: string; offsetSeconds: number } | undefined {
  const [, rest, name, sign, hours, minutes] = ZONE_SUFFIX_RE.exec(text) ?? [];
  if (rest === undefined || name === undefined) return undefined;
  if (NOT_ZONES.has(name) || !HAS_TIME_RE.test(rest)) return undefined;
  if (sign !== undefined) {
    if (!['UTC', 'GMT', 'Z'].includes(name)) return undefined;
    const seconds = Number(hours) * 3600 + Number(minutes ?? 0) * 60;
    return { rest, offsetSeconds: sign === '+' ? -seconds : seconds };
  }
  return { rest, offsetSeconds: COMMON_TIME_ZONES[name] ?? 0 };
}

/** A date and time read as UTC: ISO 8601 without a zone, or a common English date. */
function parseNaive(text: string): number {
  let s = text;
  if (/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(s)) s = `${s.replace(' ', 'T')}Z`;
  else if (!/^\d{4}-\d\d-\d\d/.test(s)) {
    s = s
      .replace(/(\d)(st|nd|rd|th)\b/gi, '$1')
      .replace(/,/g, ' ')
      .replace(/(\d)(am|pm)\b/gi, '$1 $2');
    if (!/(?:\bUTC|\bGMT|Z|[+-]\d\d:?\d\d)$/i.test(s)) s = `${s} UTC`;
  }
  return Date.parse(s);
}

/**
 * Parses the body of `<time:...>` as Zulip does (dateutil with its common zone abbreviations,
 * then Unix seconds): ISO 8601, a common English date, either with a zone, or a number.
 */
export function parseTimestamp(text: string): Date | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) {
    const d = new Date(Number(trimmed) * 1000);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  const zone = splitZone(trimmed);
  const ms = zone ? parseNaive(zone.rest) - zone.offsetSeconds * 1000 : parseNaive(trimmed);
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
  if (!silent) state.push('html_inline', '', 0).content = renderTimestamp(at(m, 1));
  state.pos += m[0].length;
  return true;
}

export function timestampPlugin(md: MarkdownIt.MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_timestamp', timestamp);
}
