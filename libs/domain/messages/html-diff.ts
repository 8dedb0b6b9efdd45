import { at } from '../../core/at';

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
  const cell = (i: number, j: number) => at(at(lcs, i), j);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      at(lcs, i)[j] =
        a[i] === b[j] ? cell(i + 1, j + 1) + 1 : Math.max(cell(i + 1, j), cell(i, j + 1));
    }
  }
  const isTag = (t: string) => t.startsWith('<');
  let out = '';
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const oldToken = a[i];
    const newToken = b[j];
    if (newToken !== undefined && oldToken === newToken) {
      out += newToken;
      i++;
      j++;
    } else if (newToken !== undefined && (i >= n || cell(i, j + 1) >= cell(i + 1, j))) {
      out +=
        isTag(newToken) || /^\s+$/.test(newToken)
          ? newToken
          : `<span class="highlight_text_inserted">${newToken}</span>`;
      j++;
    } else {
      // Here j >= m or the longest common subsequence skips a[i]; either way i < n.
      const removed = at(a, i);
      if (!isTag(removed) && !/^\s+$/.test(removed)) {
        out += `<span class="highlight_text_deleted">${removed}</span>`;
      }
      i++;
    }
  }
  return `<div>${out}</div>`;
}
