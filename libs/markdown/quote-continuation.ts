import { at } from '../core/at';

const EMPTY_QUOTE_LINE_RE = /^( {0,3}>[>\s]*)$/;
const FENCE_RE = /^\s*(`{3,}|~{3,})[ ]*\{?\.?([\w+#./-]*)/;
/** Fences whose content is Markdown again, where quotes continue the same way. */
const MARKDOWN_FENCES = new Set(['quote', 'quoted', 'spoiler']);

/**
 * Python-Markdown (Zulip) quotes every line of a block after its first `>` line, even after
 * empty `>` lines, where CommonMark ends the quote: `>\n>\ntext` is a quote of "text" in Zulip.
 * Give such a line the `>` markers of the empty quote line above it, so markdown-it agrees.
 */
export function continueQuotesAfterEmptyLines(src: string): string {
  if (!src.includes('>')) return src;
  const lines = src.split('\n');
  let fence: string | undefined;
  const containers: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (fence !== undefined) {
      if (line.trim() === fence) fence = undefined;
      continue;
    }
    const [, marker, lang = ''] = FENCE_RE.exec(line) ?? [];
    if (marker !== undefined) {
      if (line.trim() === containers[containers.length - 1]) containers.pop();
      else if (MARKDOWN_FENCES.has(lang.toLowerCase())) containers.push(marker);
      else fence = marker;
      continue;
    }
    if (i === 0 || line.trim() === '' || /^ {0,3}>/.test(line)) continue;
    const [, quoteMarkers] = EMPTY_QUOTE_LINE_RE.exec(at(lines, i - 1)) ?? [];
    if (quoteMarkers !== undefined) lines[i] = `${quoteMarkers.replace(/\s+$/, '')} ${line}`;
  }
  return lines.join('\n');
}
