import katex from 'katex';
import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';
import { escapeText } from './escape';

const KATEX_OPTIONS = {
  throwOnError: true,
  strict: 'ignore',
  maxSize: 100,
  maxExpand: 1000,
} as const;

/** KaTeX HTML, or undefined when the TeX does not parse. */
export function renderTex(tex: string, displayMode: boolean): string | undefined {
  try {
    return katex.renderToString(tex, { ...KATEX_OPTIONS, displayMode });
  } catch {
    return undefined;
  }
}

/** Python's html.escape (quote=True), which Zulip uses for ```math errors. */
function escapeWithQuotes(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
}

/** A ```math block: one display-mode paragraph per blank-line-separated chunk. */
export function renderMathBlock(content: string): string {
  const paragraphs = content
    .replace(/\n+$/, '')
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '');
  return paragraphs
    .map((tex) => {
      const html = renderTex(tex, true);
      return html === undefined
        ? `<p><span class="tex-error">${escapeWithQuotes(tex)}</span></p>\n`
        : `<p>${html}</p>\n`;
    })
    .join('');
}

// Zulip: (?<!\$)\$\$(?P<body>[^\n_$](\\\$|[^$\n])*)\$\$(?!\$)
const INLINE_TEX_RE = /\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)/y;

function inlineMath(state: MarkdownIt.StateInline, silent: boolean): boolean {
  const pos = state.pos;
  if (state.src.charCodeAt(pos) !== 0x24 /* $ */) return false;
  // Zulip: \B(?<!\$)\$\$...\$\$(?!\$)\B, i.e. no word character directly around the $$.
  if (/[$\w]/.test(state.src[pos - 1] ?? '')) return false;
  INLINE_TEX_RE.lastIndex = pos;
  const m = INLINE_TEX_RE.exec(state.src);
  if (!m || /\w/.test(state.src[pos + m[0].length] ?? '')) return false;
  if (!silent) {
    const html = renderTex(at(m, 1), false);
    state.push('html_inline', '', 0).content =
      html ?? `<span class="tex-error">${escapeText(m[0])}</span>`;
  }
  state.pos = pos + m[0].length;
  return true;
}

export function mathPlugin(md: MarkdownIt.MarkdownIt): void {
  md.inline.ruler.before('backticks', 'zulip_inline_math', inlineMath);
}
