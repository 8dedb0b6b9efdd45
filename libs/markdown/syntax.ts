import type MarkdownIt from 'markdown-it';
import { at } from '../core/at';
import { escapeText } from './escape';

type BlockRule = (
  state: MarkdownIt.StateBlock,
  start: number,
  end: number,
  silent: boolean,
) => boolean;

function originalBlockRule(md: MarkdownIt.MarkdownIt, name: string): BlockRule {
  const rule = md.block.ruler.__rules__.find((r) => r.name === name);
  if (!rule) throw new Error(`markdown-it block rule ${name} not found`);
  return rule.fn;
}

/** Paragraphs keep trailing whitespace and inner indentation, as in Python-Markdown. */
function paragraph(state: MarkdownIt.StateBlock, startLine: number, endLine: number): boolean {
  const terminators = state.md.block.ruler.getRules('paragraph');
  const oldParentType = state.parentType;
  let nextLine = startLine + 1;
  state.parentType = 'paragraph';
  for (; nextLine < endLine && !state.isEmpty(nextLine); nextLine++) {
    const indent = at(state.sCount, nextLine);
    if (indent - state.blkIndent > 3) continue;
    if (indent < 0) continue;
    if (terminators.some((rule) => rule(state, nextLine, endLine, true))) break;
  }
  const content = state.getLines(startLine, nextLine, state.blkIndent, false).replace(/^\s+/, '');
  state.line = nextLine;
  state.push('paragraph_open', 'p', 1).map = [startLine, state.line];
  const inline = state.push('inline', '', 0);
  inline.content = content;
  inline.map = [startLine, state.line];
  inline.children = [];
  state.push('paragraph_close', 'p', -1);
  state.parentType = oldParentType;
  return true;
}

/**
 * Every newline is a <br> (Zulip's nl2br), the next line's indentation is kept, and so are the
 * spaces before it: Zulip turns off Python-Markdown's two-space line break.
 */
function newline(state: MarkdownIt.StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
  if (!silent) state.push('softbreak', 'br', 0);
  state.pos++;
  return true;
}

/** Zulip's inline code: a run of N backticks to the next run of exactly N, verbatim, one line. */
function backticks(state: MarkdownIt.StateInline, silent: boolean): boolean {
  const src = state.src;
  let pos = state.pos;
  if (src.charCodeAt(pos) !== 0x60) return false;
  if (pos > 0 && src.charCodeAt(pos - 1) === 0x5c /* \ */) return false;
  const start = pos;
  while (pos < state.posMax && src.charCodeAt(pos) === 0x60) pos++;
  const marker = src.slice(start, pos);
  const lineEnd = src.indexOf('\n', pos);
  const limit = lineEnd === -1 ? state.posMax : Math.min(lineEnd, state.posMax);
  let search = pos + 1;
  while (search < limit) {
    const close = src.indexOf(marker, search);
    if (close === -1 || close + marker.length > limit) break;
    let closeEnd = close + marker.length;
    if (src.charCodeAt(closeEnd) === 0x60) {
      while (src.charCodeAt(closeEnd) === 0x60) closeEnd++;
      search = closeEnd;
      continue;
    }
    if (!silent) {
      const token = state.push('code_inline', 'code', 0);
      token.markup = marker;
      token.content = src.slice(pos, close);
    }
    state.pos = closeEnd;
    return true;
  }
  if (!silent) state.pending += marker;
  state.pos = pos;
  return true;
}

// Python-Markdown's ENTITY_RE: entities are passed through to the HTML untouched.
const ENTITY_RE = /&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z0-9]+);/y;

function entity(state: MarkdownIt.StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x26 /* & */) return false;
  ENTITY_RE.lastIndex = state.pos;
  const m = ENTITY_RE.exec(state.src);
  if (!m) return false;
  if (!silent) state.push('html_inline', '', 0).content = m[0];
  state.pos += m[0].length;
  return true;
}

/**
 * Python-Markdown (Zulip) nests a list item indented by 2+ spaces under the previous item,
 * while CommonMark wants it indented to the parent's content column ("1. " is 3 wide).
 * Re-indent such items so markdown-it nests them the same way.
 */
export function normalizeListIndentation(src: string): string {
  const lines = src.split('\n');
  const stack: { indent: number; shift: number; content: number }[] = [];
  let fence: string | undefined;
  let previousBlank = false;
  for (const [i, line] of lines.entries()) {
    const [, fenceMarker] = /^\s*(`{3,}|~{3,})/.exec(line) ?? [];
    if (fence !== undefined) {
      if (line.trim() === fence) fence = undefined;
      continue;
    }
    if (fenceMarker !== undefined) {
      fence = fenceMarker;
      stack.length = 0;
      continue;
    }
    if (line.trim() === '') {
      previousBlank = true;
      continue;
    }
    const item = /^( *)([*+-]|\d{1,9}[.)])( +|$)/.exec(line);
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    if (item && stack.length === 0 && indent >= 4) {
      // An indented code block, not a list.
    } else if (item) {
      while (stack.length > 0 && at(stack, stack.length - 1).indent >= indent) stack.pop();
      const parent = stack[stack.length - 1];
      let newIndent = indent + (parent?.shift ?? 0);
      if (parent && indent >= 2 && newIndent < parent.content) newIndent = parent.content;
      if (newIndent !== indent) lines[i] = ' '.repeat(newIndent) + line.slice(indent);
      const spaces = Math.min(Math.max(at(item, 3).length, 1), 4);
      stack.push({
        indent,
        shift: newIndent - indent,
        content: newIndent + at(item, 2).length + spaces,
      });
    } else if (indent === 0 && previousBlank) {
      stack.length = 0;
    } else if (indent > 0 && stack.length > 0) {
      const { shift } = at(stack, stack.length - 1);
      if (shift > 0) lines[i] = ' '.repeat(shift) + line;
    }
    previousBlank = false;
  }
  return lines.join('\n');
}

/** A `>` line with nothing after it is text, not an empty quote (Python-Markdown's behaviour). */
function emptyBlockquotes(state: MarkdownIt.StateCore): void {
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length - 1; i++) {
    const open = at(tokens, i);
    if (open.type !== 'blockquote_open' || open.markup !== '>') continue;
    if (at(tokens, i + 1).type !== 'blockquote_close') continue;
    const p = new state.Token('paragraph_open', 'p', 1);
    p.block = true;
    p.map = open.map;
    const inline = new state.Token('inline', '', 0);
    inline.content = '>';
    inline.children = [];
    inline.map = open.map;
    const close = new state.Token('paragraph_close', 'p', -1);
    close.block = true;
    tokens.splice(i, 2, p, inline, close);
  }
}

/** Zulip-specific adjustments of markdown-it's CommonMark behaviour. */
export function syntaxPlugin(md: MarkdownIt.MarkdownIt): void {
  // No reference links, setext headings, images or <autolinks> in Zulip.
  md.disable(['reference', 'lheading', 'image', 'autolink', 'html_block', 'html_inline']);

  md.block.ruler.at('paragraph', paragraph);
  md.inline.ruler.at('newline', newline);
  md.inline.ruler.at('backticks', backticks);
  md.inline.ruler.at('entity', entity);

  // Inside a list, a nested ordered list may start at any number right after a paragraph.
  const list = originalBlockRule(md, 'list');
  md.block.ruler.at(
    'list',
    (state, start, end, silent) => {
      if (silent && state.parentType === 'paragraph' && state.listIndent >= 0) {
        state.parentType = 'list';
        try {
          return list(state, start, end, silent);
        } finally {
          state.parentType = 'paragraph';
        }
      }
      return list(state, start, end, silent);
    },
    { alt: ['paragraph', 'reference', 'blockquote'] },
  );

  md.core.ruler.after('block', 'zulip_empty_blockquotes', emptyBlockquotes);

  // Nested lists follow their item's text directly: `<li>text<ul>`.
  const listOpen =
    (tag: string): MarkdownIt.RendererRule =>
    (tokens, idx, options, _env, self) => {
      const start = at(tokens, idx).attrGet('start');
      const attrs = start !== null ? ` start="${escapeText(String(start))}"` : '';
      void options;
      void self;
      return `<${tag}${attrs}>\n`;
    };
  md.renderer.rules.bullet_list_open = listOpen('ul');
  md.renderer.rules.ordered_list_open = listOpen('ol');
  md.renderer.rules.code_inline = (tokens, idx) =>
    `<code>${escapeText(at(tokens, idx).content)}</code>`;
  md.renderer.rules.text = (tokens, idx) => escapeText(at(tokens, idx).content);
}
