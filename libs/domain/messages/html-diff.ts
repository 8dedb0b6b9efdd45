/**
 * Zulip's highlight_html_differences, simplified: compares the text of two rendered versions
 * word by word (longest common subsequence) and marks insertions and deletions with Zulip's
 * classes, keeping the new version's markup for unchanged text.
 */
export function contentHtmlDiff(before: string, after: string): string {
  const tokenize = (html: string) => html.match(/<[^>]+>|[^<\s]+|\s+/g) ?? [];
  const a = tokenize(before);
  const b = tokenize(after);
  const n = a.length;
  const m = b.length;
  // Bounded work: very long messages fall back to a whole-block replacement.
  if (n * m > 4_000_000) {
    return `<div><span class="highlight_text_deleted">${before}</span><span class="highlight_text_inserted">${after}</span></div>`;
  }
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const isTag = (t: string) => t.startsWith('<');
  let out = '';
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out += b[j];
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out +=
        isTag(b[j]) || /^\s+$/.test(b[j])
          ? b[j]
          : `<span class="highlight_text_inserted">${b[j]}</span>`;
      j++;
    } else {
      if (!isTag(a[i]) && !/^\s+$/.test(a[i])) {
        out += `<span class="highlight_text_deleted">${a[i]}</span>`;
      }
      i++;
    }
  }
  return `<div>${out}</div>`;
}
