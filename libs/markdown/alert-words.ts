/**
 * Zulip's alert-word match: case-insensitive, and the word must not be flanked by
 * word characters (Zulip allows any non-alphanumeric boundary, e.g. "word!" or "(word").
 */
export function findAlertWords(content: string, words: string[]): boolean {
  const lower = content.toLowerCase();
  return words.some((word) => {
    const w = word.trim().toLowerCase();
    if (w === '') return false;
    const escaped = w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'u').test(lower);
  });
}
