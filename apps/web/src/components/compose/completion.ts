import { useState } from 'preact/hooks';
import { at } from '../../../../../libs/core/at';
import { emojiMatches, type EmojiChoice } from '../../emoji';
import { store } from '../../store';

/** A completion offered for the word before the caret. */
export interface Suggestion {
  key: string;
  label: string;
  emoji?: EmojiChoice;
  insert: string;
}

/** The completions offered, and where the word they replace starts. */
export interface Suggestions {
  start: number;
  list: Suggestion[];
}

/** What the word before the caret asks to complete: `@name` or `:emoji`. */
function suggestionsFor(text: string, caret: number): Suggestions | null {
  const before = text.slice(0, caret);
  const [, mention] = /(?:^|\s)@([\p{L}\p{N}_.-]*)$/u.exec(before) ?? [];
  if (mention !== undefined) {
    const q = mention.toLowerCase();
    const list = [...store.users.values()]
      .filter((u) => u.is_active !== false && u.full_name.toLowerCase().includes(q))
      .slice(0, 8)
      .map((u) => ({ key: `u${u.user_id}`, label: u.full_name, insert: `@**${u.full_name}** ` }));
    return { start: caret - mention.length - 1, list };
  }
  const [, emoji] = /(?:^|\s):([a-z0-9_+-]{2,})$/.exec(before) ?? [];
  if (emoji !== undefined) {
    const list = emojiMatches(emoji).map((c) => ({
      key: `e${c.name}`,
      label: `:${c.name}:`,
      emoji: c,
      insert: `:${c.name}: `,
    }));
    return { start: caret - emoji.length - 1, list };
  }
  return null;
}

/** The completions on show in the box, and which is selected. */
export interface Completion {
  suggest: Suggestions | null;
  selected: number;
  /** The box's text or caret changed: what its word before the caret completes to, if anything. */
  update: (box: HTMLTextAreaElement) => void;
  close: () => void;
  /**
   * The keys of the list while it shows: the arrows move, Enter or Tab picks, Esc closes the list
   * (not the box). Whether the key was one of them.
   */
  onKey: (e: KeyboardEvent, pick: (s: Suggestion) => void) => boolean;
}

/** @-mention and emoji completion for the box. */
export function useCompletion(): Completion {
  const [suggest, setSuggest] = useState<Suggestions | null>(null);
  const [selected, setSelected] = useState(0);
  const onKey = (e: KeyboardEvent, pick: (s: Suggestion) => void) => {
    if (!suggest) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = suggest.list.length;
      setSelected((selected + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
      return true;
    }
    if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      pick(at(suggest.list, selected));
      return true;
    }
    if (e.key === 'Escape') {
      e.stopPropagation();
      setSuggest(null);
      return true;
    }
    return false;
  };
  return {
    suggest,
    selected,
    update: (box) => {
      setSelected(0);
      const found = suggestionsFor(box.value, box.selectionStart);
      setSuggest(found && found.list.length ? found : null);
    },
    close: () => setSuggest(null),
    onKey,
  };
}
