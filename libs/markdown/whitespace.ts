/** Python's str.expandtabs: each tab pads to the next multiple of `size` columns on its line. */
function expandTabs(line: string, size: number): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) {
    out += ch === '\t' ? ' '.repeat(size - (out.length % size)) : ch;
  }
  return out;
}

/**
 * Python-Markdown's NormalizeWhitespace, which runs before everything else in Zulip: line ends
 * become \n, tabs become spaces (tab length 4, in code blocks too), and a line of spaces after
 * a line break becomes empty.
 */
export function normalizeWhitespace(src: string): string {
  return src
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line, i) => {
      const expanded = expandTabs(line, 4);
      return i > 0 && /^ +$/.test(expanded) ? '' : expanded;
    })
    .join('\n');
}
