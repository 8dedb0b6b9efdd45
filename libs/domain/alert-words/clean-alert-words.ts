/** Trims words and drops empty ones, as Zulip does before adding or removing. */
export const cleanAlertWords = (words: string[]): string[] =>
  words.map((w) => w.trim()).filter((w) => w !== '');
