import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';
import { zulipEnv } from './env';
import { escapeAttr, escapeText } from './escape';
import { findCodeLanguage } from './code-languages';
import { highlightPieces, piecesToHtml } from './highlight';
import { renderMathBlock } from './math';

/**
 * Zulip's FENCE_RE: a fence, then a language (optionally `.lang` or `{.lang}`), then an
 * optional header (used by spoilers). Tildes/backticks after the header make it no fence.
 */
const FENCE_RE = /^(~{3,}|`{3,})[ ]*\{?\.?([a-zA-Z0-9_+,\-./#]*)[ ]*([^ ~`][^~`]*)?\}?$/;

type FenceKind = 'code' | 'quote' | 'spoiler' | 'math';

/** A fence line's parts (FENCE_RE), or null when the line is no fence. */
function parseFence(line: string): { fence: string; lang: string; header: string } | null {
  const [, fence, lang = '', header = ''] = FENCE_RE.exec(line) ?? [];
  return fence === undefined ? null : { fence, lang, header };
}

function fenceKind(lang: string): FenceKind {
  const l = lang.toLowerCase();
  if (l === 'quote' || l === 'quoted') return 'quote';
  if (l === 'spoiler') return 'spoiler';
  if (l === 'math') return 'math';
  return 'code';
}

/**
 * CodeHilite's header line, which Zulip keeps in the block: with no fence language, a first
 * line like `#!/usr/bin/python` or `:::python` names the language to highlight with.
 */
const HEADER_LANGUAGE_RE = /^(?:::+|#!)(?:(?:\/\w+)*[/ ])?([\w#.+-]*)/;

/** Pygments escapes quotes too; lxml, which Zulip runs over blocks with a language, does not. */
function escapePygments(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * Zulip's code block HTML: Pygments token spans (see highlight.ts) inside `div.codehilite`,
 * which names the lexer in `data-code-language` when the fence gave a language.
 */
export function renderCodeBlock(content: string, lang: string): string {
  const lines = content
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const code = lines.join('\n');
  const header = lang ? undefined : HEADER_LANGUAGE_RE.exec(code)?.[1];
  const language = findCodeLanguage(lang || header || '');
  const pieces = language && highlightPieces(code, language);
  const escape = lang ? escapeText : escapePygments;
  const html = pieces ? piecesToHtml(pieces, escape) : escape(code);
  const name = language?.name ?? lang.toLowerCase();
  const langAttr = lang ? ` data-code-language="${escapeAttr(name)}"` : '';
  return `<div class="codehilite"${langAttr}><pre><span></span><code>${html}\n</code></pre></div>\n`;
}

function lineText(state: MarkdownIt.StateBlock, line: number): string {
  return state.src.slice(at(state.bMarks, line) + at(state.tShift, line), at(state.eMarks, line));
}

/**
 * Where a fence's content ends, and whether a closing fence ends it (else its container's end
 * or an outdented line does).
 */
function fenceEnd(
  state: MarkdownIt.StateBlock,
  opening: { startLine: number; endLine: number; fence: string; kind: FenceKind },
): { contentEnd: number; closed: boolean } {
  const stack: { fence: string; container: boolean }[] = [
    { fence: opening.fence, container: opening.kind === 'quote' || opening.kind === 'spoiler' },
  ];
  let nextLine = opening.startLine + 1;
  for (; nextLine < opening.endLine; nextLine++) {
    const empty = state.isEmpty(nextLine);
    if (!empty && at(state.sCount, nextLine) < state.blkIndent) break;
    const text = lineText(state, nextLine).replace(/\s+$/, '');
    const top = at(stack, stack.length - 1);
    if (text === top.fence) {
      stack.pop();
      if (stack.length === 0) return { contentEnd: nextLine, closed: true };
    } else if (top.container) {
      const inner = parseFence(text);
      if (inner) {
        const innerKind = fenceKind(inner.lang);
        stack.push({
          fence: inner.fence,
          container: innerKind === 'quote' || innerKind === 'spoiler',
        });
      }
    }
  }
  return { contentEnd: nextLine, closed: false };
}

function pushQuote(
  state: MarkdownIt.StateBlock,
  { startLine, contentEnd, fence }: { startLine: number; contentEnd: number; fence: string },
): void {
  const openToken = state.push('blockquote_open', 'blockquote', 1);
  openToken.markup = fence;
  openToken.map = [startLine, state.line];
  state.md.block.tokenize(state, startLine + 1, contentEnd);
  state.push('blockquote_close', 'blockquote', -1).markup = fence;
}

function pushSpoiler(
  state: MarkdownIt.StateBlock,
  { startLine, contentEnd, header }: { startLine: number; contentEnd: number; header: string },
): void {
  const env = zulipEnv(state.env);
  state.push('zulip_spoiler_open', 'div', 1).map = [startLine, state.line];
  if (header) {
    state.push('paragraph_open', 'p', 1);
    const inline = state.push('inline', '', 0);
    inline.content = header;
    inline.map = [startLine, startLine + 1];
    inline.children = [];
    state.push('paragraph_close', 'p', -1);
  }
  state.push('zulip_spoiler_middle', 'div', 0);
  env.spoilerDepth += 1;
  state.md.block.tokenize(state, startLine + 1, contentEnd);
  env.spoilerDepth -= 1;
  state.push('zulip_spoiler_close', 'div', -1);
}

/**
 * Block rule for Zulip's fences (replaces markdown-it's `fence`). Like Zulip's
 * FencedBlockPreprocessor, a fence closes only on a line equal to its opening fence; inside
 * quote and spoiler fences, nested fences are tracked so their closers don't end the outer one.
 * An unclosed fence runs to the end of its container.
 */
function zulipFence(
  state: MarkdownIt.StateBlock,
  startLine: number,
  endLine: number,
  silent: boolean,
): boolean {
  if (at(state.sCount, startLine) - state.blkIndent >= 4) return false;
  const open = parseFence(lineText(state, startLine).replace(/\s+$/, ''));
  if (!open) return false;
  if (silent) return true;

  const { fence } = open;
  const env = zulipEnv(state.env);
  // Zulip's FencedBlockPreprocessor: a fence without a language takes the organization's
  // default, except inside spoilers.
  const lang = open.lang || (env.spoilerDepth > 0 ? '' : (env.ctx.defaultCodeBlockLanguage ?? ''));
  const header = open.header.trim();
  const kind = fenceKind(lang);
  const { contentEnd, closed } = fenceEnd(state, { startLine, endLine, fence, kind });
  state.line = closed ? contentEnd + 1 : contentEnd;

  if (kind === 'code' || kind === 'math') {
    const token = state.push(
      kind === 'code' ? 'fence' : 'zulip_math',
      kind === 'code' ? 'code' : '',
      0,
    );
    token.info = lang;
    token.markup = fence;
    token.block = true;
    token.content = state.getLines(startLine + 1, contentEnd, at(state.sCount, startLine), true);
    token.map = [startLine, state.line];
    return true;
  }

  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'blockquote';
  state.lineMax = contentEnd;
  if (kind === 'quote') pushQuote(state, { startLine, contentEnd, fence });
  else pushSpoiler(state, { startLine, contentEnd, header });
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = closed ? contentEnd + 1 : contentEnd;
  return true;
}

export function codeBlocksPlugin(md: MarkdownIt.MarkdownIt): void {
  md.block.ruler.at('fence', zulipFence, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.renderer.rules.fence = (tokens, idx) => {
    const { content, info } = at(tokens, idx);
    return renderCodeBlock(content, info);
  };
  md.renderer.rules.code_block = (tokens, idx) => renderCodeBlock(at(tokens, idx).content, '');
  md.renderer.rules.zulip_math = (tokens, idx) => renderMathBlock(at(tokens, idx).content);
  md.renderer.rules.zulip_spoiler_open = () =>
    '<div class="spoiler-block"><div class="spoiler-header">\n';
  md.renderer.rules.zulip_spoiler_middle = () =>
    '</div><div class="spoiler-content" aria-hidden="true">\n';
  md.renderer.rules.zulip_spoiler_close = () => '</div></div>\n';
}
