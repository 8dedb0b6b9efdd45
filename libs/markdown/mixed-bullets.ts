import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';

type Token = MarkdownIt.Token;

/** Index of the token closing the one opened at `open` (same level, nesting -1). */
function closingIndex(tokens: Token[], open: number): number {
  const { level, type } = at(tokens, open);
  const closeType = type.replace(/_open$/, '_close');
  for (let i = open + 1; i < tokens.length; i++) {
    const t = at(tokens, i);
    if (t.type === closeType && t.level === level) return i;
  }
  return tokens.length - 1;
}

/** Paragraphs directly in the list's items show as <p>, as in a loose list. */
function loosen(tokens: Token[], from: number, to: number, listLevel: number): void {
  for (const t of tokens.slice(from, to + 1)) {
    if (
      (t.type === 'paragraph_open' || t.type === 'paragraph_close') &&
      t.level === listLevel + 2
    ) {
      t.hidden = false;
    }
  }
}

/**
 * CommonMark starts a new list when the bullet character changes (`*`, `-`, `+`); Zulip's
 * Python-Markdown keeps one list. Merge bullet lists that follow each other directly; a blank
 * line between them makes the merged list loose, as it would within one list.
 */
function mergeMixedBullets(state: MarkdownIt.StateCore): void {
  const tokens = state.tokens;
  let lines: string[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const list = at(tokens, i);
    if (list.type !== 'bullet_list_open') continue;
    let close = closingIndex(tokens, i);
    let next = tokens[close + 1];
    while (next?.type === 'bullet_list_open' && next.level === list.level) {
      const nextClose = closingIndex(tokens, close + 1);
      lines ??= state.src.split('\n');
      const lineBefore = next.map ? lines[next.map[0] - 1] : undefined;
      const separated = lineBefore !== undefined && /^[\s>]*$/.test(lineBefore);
      if (separated) loosen(tokens, i, nextClose, list.level);
      if (list.map && next.map) list.map[1] = next.map[1];
      tokens.splice(close, 2);
      close = nextClose - 2;
      next = tokens[close + 1];
    }
  }
}

export function mixedBulletsPlugin(md: MarkdownIt.MarkdownIt): void {
  md.core.ruler.after('block', 'zulip_mixed_bullets', mergeMixedBullets);
}
