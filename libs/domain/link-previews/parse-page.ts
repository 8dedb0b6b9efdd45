import { parse, type HTMLElement } from 'node-html-parser';
import type { LinkEmbed } from '../../markdown';

/** Longest title and description kept; a page's own may run to pages. */
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 500;

/** Whitespace collapsed, trimmed, cut at `max` characters with an ellipsis; null when empty. */
function clean(text: string | undefined, max: number): string | null {
  const value = text?.replace(/\s+/g, ' ').trim();
  if (!value) return null;
  return value.length > max ? `${value.slice(0, max - 1).trimEnd()}…` : value;
}

/** Zulip's OpenGraphParser: the first og:title, og:description and og:image of the page. */
function openGraph(root: HTMLElement): Partial<Record<'title' | 'description' | 'image', string>> {
  const found: Partial<Record<'title' | 'description' | 'image', string>> = {};
  for (const meta of root.querySelectorAll('meta')) {
    const property = (meta.getAttribute('property') ?? meta.getAttribute('name'))?.toLowerCase();
    const content = meta.getAttribute('content');
    if (content === undefined) continue;
    if (property === 'og:title') found.title ??= content;
    else if (property === 'og:description') found.description ??= content;
    else if (property === 'og:image') found.image ??= content;
  }
  return found;
}

/** The first element after `from` in document order that matches `tag`. */
function firstAfter(root: HTMLElement, from: HTMLElement, tag: string): HTMLElement | undefined {
  const all = root.querySelectorAll(`h1, ${tag}`);
  const start = all.indexOf(from);
  return all.slice(start + 1).find((e) => e.tagName.toLowerCase() === tag);
}

/**
 * Zulip's GenericParser, where the page has no Open Graph tags: its <title> (else its first
 * <h1>), its meta description (else the first paragraph after the <h1>, else the first one),
 * and an image right after the <h1>.
 */
function generic(root: HTMLElement): Partial<Record<'title' | 'description' | 'image', string>> {
  const h1 = root.querySelector('h1') ?? undefined;
  const title = root.querySelector('title')?.text || h1?.text;
  const paragraph = (h1 && firstAfter(root, h1, 'p')) ?? root.querySelector('p') ?? undefined;
  const description =
    root.querySelector('meta[name="description"]')?.getAttribute('content') || paragraph?.text;
  let image: string | undefined;
  for (let e = h1?.nextElementSibling; e && !image; e = e.nextElementSibling) {
    if (e.tagName === 'IMG') image = e.getAttribute('src') || undefined;
  }
  return { title, description, image };
}

/** An image URL made absolute against the page's, kept only when it is http(s). */
function absoluteImage(src: string | undefined, page: URL): string | null {
  if (!src?.trim()) return null;
  try {
    const url = new URL(src.trim(), page);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * What a page says of itself, for its preview: Open Graph first, the page's own title and text
 * where it has none. Scripts and styles are never read as text.
 */
export function previewOfPage(html: string, page: URL): LinkEmbed {
  const root = parse(html, {
    blockTextElements: { script: false, noscript: false, style: false, pre: true },
  });
  const og = openGraph(root);
  const fallback = generic(root);
  return {
    title: clean(og.title ?? fallback.title, MAX_TITLE),
    description: clean(og.description ?? fallback.description, MAX_DESCRIPTION),
    image: absoluteImage(og.image ?? fallback.image, page),
  };
}
