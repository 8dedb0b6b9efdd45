import type { Linkifier } from './types';
import { UrlTemplateError, expandUrlTemplate, templateVariableNames } from './url-template';
import { getWebLinkRegex, hrefForBareUrl } from './web-links';

/** Python regex syntax -> JavaScript: named groups, backreferences, leading inline flags. */
export function pythonPatternToJs(pattern: string): { source: string; flags: string } {
  let flags = '';
  let source = pattern;
  const inline = /^\(\?([aiLmsux]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const f of inline[1]) if ('ims'.includes(f) && !flags.includes(f)) flags += f;
  }
  source = source.replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g, '(?<$1>');
  source = source.replace(/\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/g, '\\k<$1>');
  return { source, flags };
}

function compileRaw(pattern: string): RegExp {
  const { source, flags } = pythonPatternToJs(pattern);
  try {
    return new RegExp(source, flags + 'u');
  } catch {
    return new RegExp(source, flags);
  }
}

function groupNames(re: RegExp): string[] {
  const names = new Set<string>();
  for (const m of re.source.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/g)) names.add(m[1]);
  return [...names].sort();
}

/** Throws an Error carrying Zulip's message when the pattern or template is unusable. */
export function validateLinkifier(pattern: string, urlTemplate: string): void {
  let re: RegExp;
  try {
    re = compileRaw(pattern);
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : '';
    throw new Error(`Bad regular expression: ${detail}`, { cause: e });
  }
  let templateVars: string[];
  try {
    templateVars = templateVariableNames(urlTemplate);
  } catch (e) {
    if (e instanceof UrlTemplateError) throw new Error('Invalid URL template.', { cause: e });
    throw e;
  }
  const groups = groupNames(re);
  const missingInPattern = templateVars.filter((v) => !groups.includes(v)).sort();
  if (missingInPattern.length > 0) {
    throw new Error(
      `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`,
    );
  }
  const missingInTemplate = groups.filter((g) => !templateVars.includes(g));
  if (missingInTemplate.length > 0) {
    throw new Error(
      `Group '${missingInTemplate[0]}' in linkifier pattern is not present in URL template.`,
    );
  }
}

interface CompiledLinkifier {
  re: RegExp;
  urlTemplate: string;
}

const compiledCache = new Map<string, CompiledLinkifier | null>();

/**
 * Zulip's prepare_linkifier_pattern: only match after start, whitespace or one of `'"(,:<`,
 * and not when a letter or digit follows. Broken patterns are ignored (null).
 */
function compileLinkifier(l: Linkifier): CompiledLinkifier | null {
  const key = `${l.pattern}\u0000${l.urlTemplate}`;
  const cached = compiledCache.get(key);
  if (cached !== undefined) return cached;
  let compiled: CompiledLinkifier | null;
  try {
    const { source, flags } = pythonPatternToJs(l.pattern);
    let re: RegExp;
    try {
      re = new RegExp(
        `(?<=^|[\\s\\p{Z}\\u0085'"(,:<])(?:${source})(?=$|[^\\p{L}\\p{N}])`,
        `${flags}gu`,
      );
    } catch {
      re = new RegExp(`(?<=^|[\\s'"(,:<])(?:${source})(?![A-Za-z0-9])`, `${flags}g`);
    }
    compiled = { re, urlTemplate: l.urlTemplate };
  } catch {
    compiled = null;
  }
  compiledCache.set(key, compiled);
  return compiled;
}

export interface LinkifierMatch {
  index: number;
  text: string;
  url: string;
  /** Position of the linkifier in the realm's list (lower wins on ties). */
  precedence: number;
}

export function findLinkifierMatches(text: string, linkifiers: Linkifier[]): LinkifierMatch[] {
  const out: LinkifierMatch[] = [];
  linkifiers.forEach((l, precedence) => {
    const c = compileLinkifier(l);
    if (!c) return;
    c.re.lastIndex = 0;
    for (const m of text.matchAll(c.re)) {
      if (m[0] === '') continue;
      let url: string;
      try {
        url = expandUrlTemplate(c.urlTemplate, { ...m.groups });
      } catch {
        continue;
      }
      out.push({ index: m.index, text: m[0], url, precedence });
    }
  });
  return out;
}

/**
 * Resolves overlapping matches the way Zulip does: matches are taken in precedence order
 * (then by position), skipping any that overlap one already taken; the result is by position.
 */
export function removeOverlaps<T extends { index: number; text: string; precedence: number }>(
  matches: T[],
): T[] {
  const byPrecedence = [...matches].sort(
    (a, b) => a.precedence - b.precedence || a.index - b.index,
  );
  const kept: T[] = [];
  for (const m of byPrecedence) {
    const end = m.index + m.text.length;
    if (kept.some((k) => m.index < k.index + k.text.length && k.index < end)) continue;
    kept.push(m);
  }
  return kept.sort((a, b) => a.index - b.index);
}

/** Zulip's topic_links: apply linkifiers and bare URLs to a topic name. */
export function linkifyTopic(
  topic: string,
  linkifiers: Linkifier[],
): { text: string; url: string }[] {
  const matches: LinkifierMatch[] = findLinkifierMatches(topic, linkifiers);
  // Bare URLs get a lower precedence than every linkifier.
  const urlRe = new RegExp(`^(?:${getWebLinkRegex().source})`, 'iu');
  let offset = 0;
  for (const piece of topic.split(/([ !;),'"])/)) {
    const m = urlRe.exec(piece);
    if (m && piece.length > 0) {
      const url = m.groups?.url ?? m[0];
      let href = hrefForBareUrl(url);
      if (href.startsWith('http://') && !/^http:\/\//i.test(url)) href = `https://${url}`;
      matches.push({
        index: offset + m.index,
        text: url,
        url: href,
        precedence: linkifiers.length,
      });
    }
    offset += piece.length;
  }
  return removeOverlaps(matches).map((m) => ({ text: m.text, url: m.url }));
}
