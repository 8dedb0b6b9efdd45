import type { RE2JS } from 're2js';
import { PatternError, compileSafePattern, compileStoredPattern } from './safe-pattern';
import type { Linkifier } from './types';
import {
  UrlTemplateError,
  expandUrlTemplate,
  requireWebScheme,
  templateVariableNames,
} from './url-template';
import { getAnchoredWebLinkRegex, hrefForBareUrl } from './web-links';

/** Throws an Error carrying Zulip's message when the pattern or template is unusable. */
export function validateLinkifier(pattern: string, urlTemplate: string): void {
  let re: RE2JS;
  try {
    re = compileStoredPattern(pattern);
  } catch (e) {
    if (e instanceof PatternError)
      throw new Error(`Bad regular expression: ${e.message}`, { cause: e });
    throw e;
  }
  let templateVars: string[];
  try {
    templateVars = templateVariableNames(urlTemplate);
    requireWebScheme(urlTemplate);
  } catch (e) {
    if (e instanceof UrlTemplateError) throw new Error('Invalid URL template.', { cause: e });
    throw e;
  }
  const groups = Object.keys(re.namedGroups()).sort();
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
  re: RE2JS;
  urlTemplate: string;
}

// Bounded: a tenant editing linkifiers in a loop must not grow it without end.
const CACHE_LIMIT = 2000;
const compiledCache = new Map<string, CompiledLinkifier | null>();

/**
 * Zulip's prepare_linkifier_pattern, on RE2 as in Zulip: only match after start, whitespace or
 * one of `'"(,:<`, and not when a letter or digit follows. Group 2 is the match itself. Broken
 * patterns (stored before validation was strict) are ignored (null).
 */
function compileLinkifier(l: Linkifier): CompiledLinkifier | null {
  const key = `${l.pattern}\u0000${l.urlTemplate}`;
  const cached = compiledCache.get(key);
  if (cached !== undefined) return cached;
  let compiled: CompiledLinkifier | null;
  try {
    const re = compileSafePattern(`(^|\\s|['"(,:<])(${l.pattern})($|[^\\pL\\pN])`);
    compiled = { re, urlTemplate: l.urlTemplate };
  } catch {
    compiled = null;
  }
  if (compiledCache.size >= CACHE_LIMIT) compiledCache.clear();
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
    const m = c.re.matcher(text);
    // As Zulip's topic_links: the next search starts where the match itself ended, so the
    // character after it may also open the next match.
    for (let pos = 0; pos <= text.length && m.find(pos);) {
      const start = m.start(2);
      const end = m.end(2);
      pos = Math.max(end, pos + 1);
      if (start === end) continue;
      let url: string;
      try {
        url = expandUrlTemplate(c.urlTemplate, namedValues(m.getNamedGroups()));
      } catch {
        continue;
      }
      out.push({ index: start, text: text.slice(start, end), url, precedence });
    }
  });
  return out;
}

const namedValues = (groups: Record<string, string | null>): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, v ?? undefined]));

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
  const urlRe = getAnchoredWebLinkRegex();
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
