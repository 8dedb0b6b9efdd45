import type MarkdownIt from 'markdown-it';
import { zulipEnv } from './env';
import { escapeAttr, escapeText } from './escape';
import { renderMathBlock } from './math';

/**
 * Zulip's FENCE_RE: a fence, then a language (optionally `.lang` or `{.lang}`), then an
 * optional header (used by spoilers). Tildes/backticks after the header make it no fence.
 */
const FENCE_RE = /^(~{3,}|`{3,})[ ]*\{?\.?([a-zA-Z0-9_+,\-./#]*)[ ]*([^ ~`][^~`]*)?\}?$/;

type FenceKind = 'code' | 'quote' | 'spoiler' | 'math';

function fenceKind(lang: string): FenceKind {
  const l = lang.toLowerCase();
  if (l === 'quote' || l === 'quoted') return 'quote';
  if (l === 'spoiler') return 'spoiler';
  if (l === 'math') return 'math';
  return 'code';
}

/** Pygments lexer display names for the common aliases (Zulip's data-code-language). */
const LANGUAGE_NAMES: Record<string, string> = {
  bash: 'Bash',
  sh: 'Bash',
  shell: 'Bash',
  zsh: 'Bash',
  c: 'C',
  'c++': 'C++',
  cpp: 'C++',
  'c#': 'C#',
  csharp: 'C#',
  cs: 'C#',
  clojure: 'Clojure',
  console: 'Bash Session',
  css: 'CSS',
  dart: 'Dart',
  diff: 'Diff',
  patch: 'Diff',
  django: 'Django/Jinja',
  dockerfile: 'Docker',
  docker: 'Docker',
  elixir: 'Elixir',
  erlang: 'Erlang',
  go: 'Go',
  golang: 'Go',
  graphql: 'GraphQL',
  haskell: 'Haskell',
  hs: 'Haskell',
  html: 'HTML',
  ini: 'INI',
  java: 'Java',
  javascript: 'JavaScript',
  js: 'JavaScript',
  json: 'JSON',
  jsx: 'JSX',
  kotlin: 'Kotlin',
  latex: 'TeX',
  tex: 'TeX',
  lua: 'Lua',
  make: 'Makefile',
  makefile: 'Makefile',
  markdown: 'Markdown',
  md: 'Markdown',
  matlab: 'Matlab',
  nginx: 'Nginx configuration file',
  objc: 'Objective-C',
  ocaml: 'OCaml',
  perl: 'Perl',
  pl: 'Perl',
  php: 'PHP',
  powershell: 'PowerShell',
  ps1: 'PowerShell',
  py: 'Python',
  py3: 'Python',
  python: 'Python',
  python3: 'Python',
  py2: 'Python 2.x',
  python2: 'Python 2.x',
  r: 'R',
  rb: 'Ruby',
  ruby: 'Ruby',
  rust: 'Rust',
  rs: 'Rust',
  scala: 'Scala',
  scss: 'SCSS',
  sql: 'SQL',
  swift: 'Swift',
  text: 'Text only',
  toml: 'TOML',
  ts: 'TypeScript',
  typescript: 'TypeScript',
  tsx: 'TSX',
  vim: 'VimL',
  xml: 'XML',
  yaml: 'YAML',
  yml: 'YAML',
};

/** Zulip lowercases the fence's language and keeps it as given when Pygments has no lexer. */
export function canonicalLanguageName(lang: string): string {
  const lower = lang.toLowerCase();
  const known = LANGUAGE_NAMES[lower];
  if (known) return known;
  // Pygments' combined lexers: "css+php" -> "CSS+PHP".
  if (lower.includes('+')) {
    const parts = lower.split('+');
    if (parts.every((p) => LANGUAGE_NAMES[p])) return parts.map((p) => LANGUAGE_NAMES[p]).join('+');
  }
  return lower;
}

/** Zulip's code block HTML (without syntax highlighting, like its JS renderer). */
export function renderCodeBlock(content: string, lang: string): string {
  const lines = content
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let code = escapeText(lines.join('\n')).replace(/"/g, '&quot;');
  if (!lang) code = code.replace(/'/g, '&#39;');
  const langAttr = lang ? ` data-code-language="${escapeAttr(canonicalLanguageName(lang))}"` : '';
  return `<div class="codehilite"${langAttr}><pre><span></span><code>${code}\n</code></pre></div>\n`;
}

function lineText(state: MarkdownIt.StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
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
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const open = FENCE_RE.exec(lineText(state, startLine).replace(/\s+$/, ''));
  if (!open) return false;
  if (silent) return true;

  const fence = open[1];
  const env = zulipEnv(state.env);
  // Zulip's FencedBlockPreprocessor: a fence without a language takes the organization's
  // default, except inside spoilers.
  const lang = open[2] || (env.spoilerDepth > 0 ? '' : (env.ctx.defaultCodeBlockLanguage ?? ''));
  const header = (open[3] ?? '').trim();
  const kind = fenceKind(lang);
  const stack: { fence: string; container: boolean }[] = [
    { fence, container: kind === 'quote' || kind === 'spoiler' },
  ];
  let nextLine = startLine + 1;
  let closed = false;
  for (; nextLine < endLine; nextLine++) {
    const empty = state.isEmpty(nextLine);
    if (!empty && state.sCount[nextLine] < state.blkIndent) break;
    const text = lineText(state, nextLine).replace(/\s+$/, '');
    const top = stack[stack.length - 1];
    if (text === top.fence) {
      stack.pop();
      if (stack.length === 0) {
        closed = true;
        break;
      }
    } else if (top.container) {
      const inner = FENCE_RE.exec(text);
      if (inner) {
        const innerKind = fenceKind(inner[2] ?? '');
        stack.push({
          fence: inner[1],
          container: innerKind === 'quote' || innerKind === 'spoiler',
        });
      }
    }
  }
  const contentEnd = nextLine;
  state.line = closed ? nextLine + 1 : nextLine;

  if (kind === 'code' || kind === 'math') {
    const token = state.push(
      kind === 'code' ? 'fence' : 'zulip_math',
      kind === 'code' ? 'code' : '',
      0,
    );
    token.info = lang;
    token.markup = fence;
    token.block = true;
    token.content = state.getLines(startLine + 1, contentEnd, state.sCount[startLine], true);
    token.map = [startLine, state.line];
    return true;
  }

  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'blockquote';
  state.lineMax = contentEnd;
  if (kind === 'quote') {
    const openToken = state.push('blockquote_open', 'blockquote', 1);
    openToken.markup = fence;
    openToken.map = [startLine, state.line];
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push('blockquote_close', 'blockquote', -1).markup = fence;
  } else {
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
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = closed ? contentEnd + 1 : contentEnd;
  return true;
}

export function codeBlocksPlugin(md: MarkdownIt.MarkdownIt): void {
  md.block.ruler.at('fence', zulipFence, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.renderer.rules.fence = (tokens, idx) => renderCodeBlock(tokens[idx].content, tokens[idx].info);
  md.renderer.rules.code_block = (tokens, idx) => renderCodeBlock(tokens[idx].content, '');
  md.renderer.rules.zulip_math = (tokens, idx) => renderMathBlock(tokens[idx].content);
  md.renderer.rules.zulip_spoiler_open = () =>
    '<div class="spoiler-block"><div class="spoiler-header">\n';
  md.renderer.rules.zulip_spoiler_middle = () =>
    '</div><div class="spoiler-content" aria-hidden="true">\n';
  md.renderer.rules.zulip_spoiler_close = () => '</div></div>\n';
}
