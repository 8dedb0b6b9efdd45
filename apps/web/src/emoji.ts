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

export function emojiMatches(prefix: string, limit = 8): [string, string][] {
  const found: [string, string][] = [];
  const wanted = prefix.toLowerCase();
  for (const [name, code] of store.emoji) {
    if (name.startsWith(wanted)) found.push([name, code]);
    if (found.length >= limit) break;
  }
  return found;
}

export const QUICK_REACTIONS = ['+1', 'smile', 'heart', 'tada', 'thinking', 'eyes'];
