import TLDS from 'tlds';

/** File extensions that are also TLDs, which Zulip refuses to auto-link (e.g. "views.py"). */
const COMMON_FALSE_POSITIVE_TLDS = new Set(['java', 'md', 'mov', 'py', 'zip']);

const W = '[\\p{L}\\p{M}\\p{N}_]';

let webLinkRe: RegExp | undefined;

/**
 * Zulip's bare-URL regex (zerver/lib/markdown get_web_link_regex): a URL starts after
 * whitespace or one of `'"(,:<`, has a scheme or a known TLD, may hold up to six levels of
 * balanced parentheses in its path, and ends before optional punctuation then whitespace/end.
 */
export function getWebLinkRegex(): RegExp {
  if (webLinkRe === undefined) {
    const tlds = TLDS.filter((t) => !COMMON_FALSE_POSITIVE_TLDS.has(t))
      .sort((a, b) => b.length - a.length)
      .map((t) => t.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
      .join('|');
    const inner = '[^\\s()"]*';
    const parenGroup = '[^\\s()"]*?(?:\\(%s\\)[^\\s()"]*?)*';
    let nested = parenGroup;
    for (let i = 0; i < 6; i++) nested = nested.replace('%s', parenGroup);
    nested = nested.replace('%s', inner);
    const source =
      `(?<![^\\s'"(,:<])` +
      `(?<url>` +
      `(?:(?:https?://[\\p{L}\\p{M}\\p{N}_.:@-]+?|(?:[\\p{L}\\p{M}\\p{N}_-]+\\.)+(?:${tlds}))` +
      `(?:/${nested})?)` +
      `|(?:[\\p{L}\\p{M}\\p{N}_.-]+@[\\p{L}\\p{M}\\p{N}_.-]+\\.${W}+)` +
      `|(?:bitcoin:[13][a-km-zA-HJ-NP-Z1-9]{25,34})` +
      `)` +
      `(?=[!:;?),.'">]*(?:$|\\s))`;
    webLinkRe = new RegExp(source, 'giu');
  }
  return webLinkRe;
}

let anchoredWebLinkRe: RegExp | undefined;

/**
 * The same regex held to the start of a string (for a topic's pieces), made once: built per
 * topic, its source of several thousand TLDs was most of what formatting a topic cost.
 */
export function getAnchoredWebLinkRegex(): RegExp {
  anchoredWebLinkRe ??= new RegExp(`^(?:${getWebLinkRegex().source})`, 'iu');
  return anchoredWebLinkRe;
}

export interface WebLinkMatch {
  index: number;
  text: string;
  href: string;
}

/** The href Zulip gives a bare URL: mailto: for emails, http:// when there is no scheme. */
export function hrefForBareUrl(url: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  if (url.includes('@') && !url.includes('/')) return `mailto:${url}`;
  return `http://${url}`;
}

export function findWebLinks(text: string): WebLinkMatch[] {
  // Every kind of match holds a '.' or a ':' (a domain, a scheme, an email, bitcoin:); the
  // regex, thousands of TLDs in Unicode mode, was most of what rendering plain text cost.
  if (!text.includes('.') && !text.includes(':')) return [];
  const re = getWebLinkRegex();
  re.lastIndex = 0;
  const out: WebLinkMatch[] = [];
  for (const m of text.matchAll(re)) {
    const url = m.groups?.url ?? m[0];
    out.push({ index: m.index, text: url, href: hrefForBareUrl(url) });
  }
  return out;
}
