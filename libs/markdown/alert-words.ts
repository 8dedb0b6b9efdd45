import type { RE2JS } from 're2js';
import { compileSafePattern, quotePattern } from './safe-pattern';

/** Characters allowed right before / after an alert word (Zulip's AlertWordNotificationProcessor). */
const BEFORE = `(?:^|[ \\n(".,';\\[*\`>])`;
const AFTER = `(?:$|[ \\n)?:.,';\\]!*\`])`;

// One automaton per word list, reused across messages; bounded so many lists cannot grow it.
const CACHE_LIMIT = 5000;
const compiled = new Map<string, RE2JS | null>();

function alertWordsPattern(words: string[]): RE2JS | null {
  const key = words.join('\u0000');
  let re = compiled.get(key);
  if (re !== undefined) return re;
  const lowered = words.map((w) => w.toLowerCase()).filter((w) => w !== '');
  re = lowered.length
    ? compileSafePattern(`${BEFORE}(?:${lowered.map(quotePattern).join('|')})${AFTER}`)
    : null;
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(key, re);
  return re;
}

/**
 * Zulip's alert-word match on the raw message text: case-insensitive, and the word must be
 * bounded by the start/end of the text or by one of a few punctuation characters. One linear
 * pass over the text for all of a user's words, whatever they are.
 */
export function findAlertWords(content: string, words: string[]): boolean {
  const re = alertWordsPattern(words);
  return re !== null && re.test(content.toLowerCase());
}
