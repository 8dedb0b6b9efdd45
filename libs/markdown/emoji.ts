import { at } from '../core/at';
import emojiData from './emoji-data.json';
import { escapeAttr, escapeText } from './escape';
import type { RealmEmojiEntry } from './types';

/** Zulip's built-in non-Unicode emoji (reaction_type "zulip_extra_emoji"). */
export interface ZulipExtraEmoji {
  name: string;
  emojiCode: string;
  imageUrl: string;
}

export const ZULIP_EXTRA_EMOJI: readonly ZulipExtraEmoji[] = [
  {
    name: 'zulip',
    emojiCode: 'zulip',
    imageUrl: '/static/generated/emoji/images/emoji/unicode/zulip.png',
  },
];

interface EmojiTables {
  nameToCode: Map<string, string>;
  codeToName: Map<string, string>;
}

let tables: EmojiTables | undefined;

function getTables(): EmojiTables {
  if (tables === undefined) {
    const nameToCode = new Map<string, string>();
    const codeToName = new Map<string, string>();
    for (const [code, names] of Object.entries(emojiData as Record<string, string[]>)) {
      codeToName.set(code, at(names, 0));
      for (const name of names) nameToCode.set(name, code);
    }
    tables = { nameToCode, codeToName };
  }
  return tables;
}

/** Unicode emoji code (e.g. "1f642") for a Zulip emoji name or alias. */
export function emojiCodeForName(name: string): string | undefined {
  return getTables().nameToCode.get(name);
}

/** Canonical Zulip name for a Unicode emoji code (e.g. "1f642" -> "smile"). */
export function emojiNameForCode(code: string): string | undefined {
  return getTables().codeToName.get(code);
}

/** Zulip's emoticon conversions, applied when the user enables translate_emoticons. */
export const EMOTICON_CONVERSIONS: Readonly<Record<string, string>> = {
  ':)': 'smile',
  '(:': 'smile',
  ':(': 'frown',
  '<3': 'heart',
  ':|': 'neutral',
  ':/': 'confused',
  ';)': 'wink',
  ':D': 'grinning',
  ':o': 'open_mouth',
  ':O': 'open_mouth',
  ':p': 'stuck_out_tongue',
  ':P': 'stuck_out_tongue',
};

export function unicodeEmojiHtml(code: string, name: string): string {
  const label = escapeAttr(name.replace(/_/g, ' '));
  return (
    `<span aria-label="${label}" class="emoji emoji-${escapeAttr(code)}" role="img" ` +
    `title="${label}">:${escapeText(name)}:</span>`
  );
}

function imageEmojiHtml(name: string, src: string, deactivated: boolean): string {
  const cls = deactivated ? 'emoji emoji-deactivated' : 'emoji';
  return (
    `<img alt=":${escapeAttr(name)}:" class="${cls}" src="${escapeAttr(src)}" ` +
    `title="${escapeAttr(name.replace(/_/g, ' '))}">`
  );
}

/**
 * HTML for `:name:` syntax, or undefined when the name is not an emoji.
 * Realm emoji take precedence over Unicode emoji of the same name, as in Zulip.
 */
export function namedEmojiHtml(name: string, realmEmoji: RealmEmojiEntry[]): string | undefined {
  const realm = realmEmoji.find((e) => e.name === name && !e.deactivated);
  if (realm) return imageEmojiHtml(name, realm.sourceUrl, false);
  const extra = ZULIP_EXTRA_EMOJI.find((e) => e.name === name);
  if (extra) return imageEmojiHtml(name, extra.imageUrl, false);
  const code = emojiCodeForName(name);
  if (code === undefined) return undefined;
  return unicodeEmojiHtml(code, name);
}

/** Emoji code for a run of Unicode characters: code points in hex, without variation selectors. */
export function codeForUnicodeSequence(sequence: string): string {
  const parts: string[] = [];
  for (const ch of sequence) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp === 0xfe0f) continue;
    parts.push(cp.toString(16).padStart(4, '0'));
  }
  return parts.join('-');
}

/**
 * One emoji "sequence": a pictograph (or keycap / flag pair) with optional variation selector,
 * skin tone modifier, and further pictographs joined by ZERO WIDTH JOINER.
 */
const UNICODE_EMOJI_RE =
  /(?:[#*0-9]\uFE0F?\u20E3|\p{Regional_Indicator}{2}|\p{Extended_Pictographic}\uFE0F?\p{Emoji_Modifier}?(?:\u200D\p{Extended_Pictographic}\uFE0F?\p{Emoji_Modifier}?)*)/gu;

export interface UnicodeEmojiMatch {
  index: number;
  length: number;
  html: string;
}

/** Unicode emoji found in plain text; unknown sequences are left alone entirely. */
export function findUnicodeEmoji(text: string): UnicodeEmojiMatch[] {
  const out: UnicodeEmojiMatch[] = [];
  for (const m of text.matchAll(UNICODE_EMOJI_RE)) {
    const seq = m[0];
    const first = seq.codePointAt(0) ?? 0;
    // Zulip only converts characters from the emoji blocks, not e.g. (c) or (tm).
    if (first < 0x2000 && !seq.includes('\u20E3')) continue;
    const code = codeForUnicodeSequence(seq);
    const name = emojiNameForCode(code);
    if (name === undefined) continue;
    out.push({ index: m.index, length: seq.length, html: unicodeEmojiHtml(code, name) });
  }
  return out;
}

const EMOTICON_RE = (() => {
  const alternatives = Object.keys(EMOTICON_CONVERSIONS)
    .map((e) => e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  const terminal = `,.;?!()\\[\\] "'\\n\\t`;
  return new RegExp(`(?<![^${terminal}])(?:${alternatives})(?![^${terminal}])`, 'g');
})();

/** Emoticons such as `:)` (only when translate_emoticons is on). */
export function findEmoticons(text: string): UnicodeEmojiMatch[] {
  const out: UnicodeEmojiMatch[] = [];
  for (const m of text.matchAll(EMOTICON_RE)) {
    const name = EMOTICON_CONVERSIONS[m[0]];
    if (name === undefined) continue;
    const code = emojiCodeForName(name);
    if (code === undefined) continue;
    out.push({ index: m.index, length: m[0].length, html: unicodeEmojiHtml(code, name) });
  }
  return out;
}
