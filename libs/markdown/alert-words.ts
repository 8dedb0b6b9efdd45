/** Characters allowed right before / after an alert word (Zulip's AlertWordNotificationProcessor). */
const ALLOWED_BEFORE = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const ALLOWED_AFTER = new Set([' ', '\n', ')', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

/**
 * Zulip's alert-word match on the raw message text: case-insensitive, and the word must be
 * bounded by the start/end of the text or by one of a few punctuation characters.
 */
export function findAlertWords(content: string, words: string[]): boolean {
  const text = content.toLowerCase();
  return words.some((word) => {
    const w = word.toLowerCase();
    if (w === '') return false;
    for (let i = text.indexOf(w); i !== -1; i = text.indexOf(w, i + 1)) {
      const end = i + w.length;
      const startOk = i === 0 || ALLOWED_BEFORE.has(text[i - 1]);
      const endOk = end >= text.length || ALLOWED_AFTER.has(text[end]);
      if (startOk && endOk) return true;
    }
    return false;
  });
}
