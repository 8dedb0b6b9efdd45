import { store } from './store';

/** A Unicode emoji from Zulip's code (`1f44d`, `1f1fa-1f1f8`). */
export function emojiChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split('-').map((part) => parseInt(part, 16)));
  } catch {
    return `:${code}:`;
  }
}

/** Loads the server's emoji names (`server_emoji_data_url`) once. */
export async function loadEmoji(): Promise<void> {
  if (store.emoji.size) return;
  const res = await fetch('/static/generated/emoji/emoji_api.json');
  const { code_to_names } = (await res.json()) as { code_to_names: Record<string, string[]> };
  for (const [code, names] of Object.entries(code_to_names))
    for (const name of names) store.emoji.set(name, code);
}

let sheet: Promise<unknown> | null = null;
/** The sprite sheet and its positions (a stylesheet and a PNG), fetched when first needed. */
export function loadEmojiSheet(): void {
  sheet ??= import('virtual:emoji-sheet.css');
}

export type EmojiCatalog = (typeof import('virtual:emoji-catalog'))['default'];
let catalog: Promise<EmojiCatalog> | null = null;
export function loadCatalog(): Promise<EmojiCatalog> {
  loadEmojiSheet();
  catalog ??= import('virtual:emoji-catalog').then((m) => m.default);
  return catalog;
}

let katex: Promise<unknown> | null = null;
/** KaTeX's stylesheet and fonts, for messages with math. */
export function loadKatex(): void {
  katex ??= import('katex/dist/katex.min.css');
}

export interface EmojiChoice {
  name: string;
  /** Unicode code, or the custom emoji's id. */
  code: string;
  type: 'unicode_emoji' | 'realm_emoji';
  url?: string;
}

/** Emoji whose names start with (then contain) the query: custom ones first. */
export function emojiMatches(query: string, limit = 8): EmojiChoice[] {
  const wanted = query.toLowerCase().replace(/\s+/g, '_');
  const found: EmojiChoice[] = [];
  const seen = new Set<string>();
  const add = (c: EmojiChoice) => {
    if (found.length < limit && !seen.has(c.name)) {
      seen.add(c.name);
      found.push(c);
    }
  };
  for (const pass of [(n: string) => n.startsWith(wanted), (n: string) => n.includes(wanted)]) {
    for (const e of store.customEmoji.values())
      if (!e.deactivated && pass(e.name))
        add({ name: e.name, code: e.id, type: 'realm_emoji', url: e.source_url });
    for (const [name, code] of store.emoji)
      if (pass(name)) add({ name, code, type: 'unicode_emoji' });
  }
  return found;
}

export const QUICK_REACTIONS = ['+1', 'smile', 'heart', 'tada', 'thinking', 'eyes'];
