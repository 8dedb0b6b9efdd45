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
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence !== undefined) {
      if (line.trim() === fence) fence = undefined;
      continue;
    }
    const open = FENCE_RE.exec(line);
    if (open) {
      if (line.trim() === containers[containers.length - 1]) containers.pop();
      else if (MARKDOWN_FENCES.has(open[2].toLowerCase())) containers.push(open[1]);
      else fence = open[1];
      continue;
    }
    if (line.trim() === '' || /^ {0,3}>/.test(line)) continue;
    const above = i > 0 ? EMPTY_QUOTE_LINE_RE.exec(lines[i - 1]) : null;
    if (above) lines[i] = `${above[1].replace(/\s+$/, '')} ${line}`;
  }
  return lines.join('\n');
}
