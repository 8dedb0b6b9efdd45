import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';

/**
 * Zulip's own emphasis patterns (not CommonMark's delimiter algorithm): they never span lines,
 * `_` is never emphasis, and `*` needs non-space text right inside it.
 */
const PATTERNS: { marker: string; re: RegExp; tags: string[] }[] = [
  // ***strong em***
  { marker: '***', re: /\*\*\*(?!\s)([^*\n]+)(?<!\s)\*\*\*/y, tags: ['strong', 'em'] },
  // **strong**
  { marker: '**', re: /\*\*([^\n]+?)\*\*/y, tags: ['strong'] },
  // *em*
  { marker: '*', re: /\*(?!\s)([^*\n]+)(?<!\s)\*/y, tags: ['em'] },
  // ~~del~~
  { marker: '~~', re: /~~([^~\n]+?)~~(?!~)/y, tags: ['del'] },
];

function emphasis(state: MarkdownIt.StateInline, silent: boolean): boolean {
  const start = state.pos;
  const ch = state.src.charCodeAt(start);
  if (ch !== 0x2a /* * */ && ch !== 0x7e /* ~ */) return false;
  if (ch === 0x7e && start > 0 && state.src.charCodeAt(start - 1) === 0x7e) return false;
  for (const p of PATTERNS) {
    if (!state.src.startsWith(p.marker, start)) continue;
    p.re.lastIndex = start;
    const m = p.re.exec(state.src);
    if (!m || start + m[0].length > state.posMax) continue;
    const contentStart = start + p.marker.length;
    const contentEnd = contentStart + at(m, 1).length;
    if (!silent) {
      for (const tag of p.tags) state.push(`${tag}_open`, tag, 1).markup = p.marker;
      const oldMax = state.posMax;
      state.pos = contentStart;
      state.posMax = contentEnd;
      state.md.inline.tokenize(state);
      state.posMax = oldMax;
      for (const tag of [...p.tags].reverse())
        state.push(`${tag}_close`, tag, -1).markup = p.marker;
    }
    state.pos = start + m[0].length;
    return true;
  }
  return false;
}

export function emphasisPlugin(md: MarkdownIt.MarkdownIt): void {
  md.inline.ruler.at('emphasis', emphasis);
  md.disable(['strikethrough']);
}
