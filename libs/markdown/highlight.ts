import Prism from 'prismjs';
import loadLanguages from 'prismjs/components/index';
import type { CodeLanguage } from './code-languages';
import { STYLES, type LexerStyle } from './pygments-styles';

/** A run of code text and the Pygments class it shows with ('' for none). */
export interface Piece {
  text: string;
  cls: string;
}

// Grammars load on first use, once per process: only those messages need. We only ask for
// grammars Prism has, so its warnings would say nothing.
loadLanguages.silent = true;

/** Prism components that refine a grammar in place (CSS selectors, colours and units). */
const EXTRAS: Record<string, string> = { css: 'css-extras' };
const ready = new Set<string>();

function grammar(id: string): Prism.Grammar | undefined {
  if (!ready.has(id)) {
    // Prism's main file already holds markup, CSS, C-like and JavaScript.
    const wanted = id in Prism.languages ? [] : [id];
    if (EXTRAS[id]) wanted.push(EXTRAS[id]);
    if (wanted.length > 0) loadLanguages(wanted);
    ready.add(id);
  }
  return Prism.languages[id];
}

/** Words after which Prism's `function` is a definition (Pygments' Name.Function). */
const DEFINITION_WORDS = new Set(
  'def function fn func fun sub proc defp defmacro method macro'.split(' '),
);
/** Words after which Prism's `class-name` is the class being declared (Name.Class). */
const CLASS_WORDS = new Set('class interface enum struct trait object record union'.split(' '));
/** Classes of a word that can be the type or name before a C-style function definition. */
const BEFORE_DEFINITION = new Set(['kt', 'n', 'nx', 'nc']);

/** Classes a word list may refine (a keyword `kd`, a name `bp`...); others keep theirs. */
const WORD_CLASSES = new Set(['k', 'nb', 'kc', 'n', 'nx', '']);

/** Blanks, names, numbers, operators, punctuation, anything else: as Pygments splits code. */
const PLAIN_RE =
  /(\s+)|([A-Za-z_$\u00C0-\uFFFF][\w$\u00C0-\uFFFF]*)|(\d[\w.]*|\.\d\w*)|([-+*/%=<>!&|^~?:@\\]+)|([()[\]{},;.])|([^])/g;

function tokenNames(token: Prism.Token): string[] {
  if (token.alias === undefined) return [token.type];
  return typeof token.alias === 'string' ? [token.type, token.alias] : [token.type, ...token.alias];
}

function textOf(stream: Prism.TokenStream): string {
  if (typeof stream === 'string') return stream;
  if (Array.isArray(stream)) return stream.map(textOf).join('');
  return textOf(stream.content);
}

function numberClass(text: string, style: LexerStyle): string {
  if (/^0[xX]/.test(text)) return 'mh';
  if (/^0[bB]/.test(text)) return 'mb';
  if (/^0[oO]/.test(text)) return 'mo';
  if (/[.eE]/.test(text)) return 'mf';
  return style.integer ?? 'mi';
}

function stringClass(text: string, style: LexerStyle): string {
  if (style.string) return style.string;
  const quote = text.replace(/^[A-Za-z]*/, '').charAt(0);
  if (quote === '"') return 's2';
  if (quote === "'") return 's1';
  if (quote === '`') return 'sb';
  return 's';
}

function commentClass(text: string, atStart: boolean): string {
  if (atStart && text.startsWith('#!')) return 'ch';
  if (/^(?:\/\*|\(\*|\{-)/.test(text)) return 'cm';
  if (text.startsWith('<!--')) return 'c';
  return 'c1';
}

const isStringOrComment = (cls: string): boolean => /^(?:s|c(?!p))/.test(cls);

/** Turns Prism's token stream into Pygments-classed pieces for one lexer style. */
class Classifier {
  readonly pieces: Piece[] = [];
  private prevText = '';
  private prevCls = '';
  private inInterpolation = false;

  constructor(private readonly style: LexerStyle) {}

  private push(text: string, cls: string): void {
    this.pieces.push({ text, cls });
    if (text.trim() !== '') {
      this.prevText = text.trim();
      this.prevCls = cls;
    }
  }

  private wordClass(text: string, cls: string): string {
    const word = this.style.words?.[text];
    return word !== undefined && WORD_CLASSES.has(cls) ? word : cls;
  }

  private symbolClass(text: string, fallback: string): string {
    return this.style.symbol?.(text) ?? fallback;
  }

  /** The class of a Prism token, or null when only its children have one. */
  private tokenClass(names: string[], text: string): string | null {
    const style = this.style;
    for (const name of names) {
      const override = style.types?.[name];
      if (override !== undefined) return this.wordClass(text, override);
    }
    for (const name of names) {
      const cls = this.baseClass(name, text);
      if (cls !== null) return cls;
    }
    return null;
  }

  private baseClass(type: string, text: string): string | null {
    const style = this.style;
    switch (type) {
      case 'keyword':
        return this.wordClass(text, 'k');
      case 'builtin':
        return this.wordClass(text, 'nb');
      case 'boolean':
      case 'null':
      case 'nil':
        return this.wordClass(text, 'kc');
      case 'constant':
        return this.wordClass(text, 'no');
      case 'number':
        return numberClass(text, style);
      case 'char':
        return 'sc';
      case 'string':
      case 'template-string':
      case 'attr-value':
        return stringClass(text, style);
      case 'regex':
        return 'sr';
      case 'shebang':
        return 'ch';
      case 'comment':
      case 'hashbang':
        return commentClass(text, this.prevText === '' && this.pieces.every((p) => p.text === ''));
      case 'operator':
        return /^[A-Za-z]+$/.test(text) ? 'ow' : this.symbolClass(text, 'o');
      case 'punctuation':
        return this.symbolClass(text, 'p');
      case 'function':
      case 'function-definition': {
        if (DEFINITION_WORDS.has(this.prevText)) return 'nf';
        if (this.prevText === '.') return style.attribute ?? style.call ?? style.name;
        if (BEFORE_DEFINITION.has(this.prevCls)) return 'nf';
        return this.wordClass(text, style.call ?? 'nf');
      }
      case 'class-name':
        return CLASS_WORDS.has(this.prevText) ? 'nc' : this.wordClass(text, style.name || 'n');
      case 'variable':
        return 'nv';
      case 'property':
      case 'attr-name':
        return 'na';
      case 'tag':
      case 'selector':
        return 'nt';
      case 'entity':
        return 'ni';
      case 'doctype':
      case 'prolog':
      case 'cdata':
      case 'macro':
      case 'directive':
      case 'preprocessor':
        return 'cp';
      case 'symbol':
        return 'ss';
      case 'decorator':
      case 'annotation':
        return 'nd';
      case 'namespace':
        return 'nn';
      case 'title':
        return /^\s*##/.test(text) ? 'gu' : 'gh';
      case 'inserted':
        return 'gi';
      case 'deleted':
        return 'gd';
      case 'interpolation-punctuation':
        return 'si';
      default:
        return null;
    }
  }

  /** The class of a plain identifier, from the word before it. */
  private nameClass(): string {
    const name = this.style.name;
    if (!name) return name;
    if (DEFINITION_WORDS.has(this.prevText)) return 'nf';
    if (CLASS_WORDS.has(this.prevText)) return 'nc';
    return this.prevText === '.' ? (this.style.attribute ?? name) : name;
  }

  /** Text Prism left plain: Pygments still spans its names, numbers and symbols. */
  private plain(text: string): void {
    const mode = this.style.plain ?? 'tokens';
    if (mode === 'text') {
      this.push(text, '');
      return;
    }
    if (mode === 'scalar') {
      for (const part of text.split(/(\s*\n\s*)/)) {
        const m = /^(\s*)(.*?)(\s*)$/s.exec(part) ?? ['', '', part, ''];
        this.push(m[1], '');
        this.push(m[2], m[2] ? this.style.name : '');
        this.push(m[3], '');
      }
      return;
    }
    PLAIN_RE.lastIndex = 0;
    for (let m = PLAIN_RE.exec(text); m !== null; m = PLAIN_RE.exec(text)) {
      const [all, space, word, number, operator, punctuation] = m;
      if (space !== undefined) this.push(all, '');
      else if (word !== undefined) this.push(word, this.wordClass(word, this.nameClass()));
      else if (number !== undefined) this.push(number, numberClass(number, this.style));
      else if (operator !== undefined) this.push(operator, this.symbolClass(operator, 'o'));
      else if (punctuation !== undefined)
        this.push(punctuation, this.symbolClass(punctuation, 'p'));
      else this.push(all, '');
    }
  }

  /** Classifies a stream; `inherited` is the class of the token holding it, if any. */
  add(stream: Prism.TokenStream, inherited: string | null): void {
    if (typeof stream === 'string') {
      if (inherited === null) this.plain(stream);
      else if (isStringOrComment(inherited)) this.push(stream, inherited);
      else {
        // Pygments leaves the blanks around a name unspanned.
        const [, before, inner, after] = /^(\s*)(.*?)(\s*)$/s.exec(stream) ?? ['', '', stream, ''];
        this.push(before, '');
        this.push(inner, inherited);
        this.push(after, '');
      }
      return;
    }
    if (Array.isArray(stream)) {
      for (const item of stream) this.add(item, inherited);
      return;
    }
    const names = tokenNames(stream);
    const text = textOf(stream);
    const style = this.style;
    if (style.absorb && names.some((name) => style.absorb?.includes(name))) {
      this.push(text, this.tokenClass(names, text) ?? '');
      return;
    }
    // An interpolation is code again: its names are read afresh, its brackets are `si`.
    if (stream.type === 'interpolation') {
      const outer = this.inInterpolation;
      this.inInterpolation = true;
      this.add(stream.content, null);
      this.inInterpolation = outer;
      return;
    }
    let cls = this.tokenClass(names, text);
    const punctuation = names.includes('punctuation');
    const overridden = names.some((name) => style.types?.[name] !== undefined);
    if (this.inInterpolation && punctuation && !overridden) cls = 'si';
    // Quotes and brackets inside a string or comment belong to it.
    const nested = punctuation || stream.type === 'string';
    if (inherited !== null && isStringOrComment(inherited) && nested && !overridden) {
      cls = inherited;
    }
    this.add(stream.content, cls ?? inherited);
  }
}

/** Pygments' Diff lexer reads whole lines by their first characters. */
function diffPieces(code: string): Piece[] {
  return code.split(/(\n)/).map((line) => {
    let cls = '';
    if (/^(?:[Ii]ndex|diff|=)/.test(line)) cls = 'gh';
    else if (/^(?:@|\d+(?:,\d+)?[acd]\d+)/.test(line)) cls = 'gu';
    else if (/^(?:!|---$)/.test(line)) cls = 'gs';
    else if (/^(?:< |-)/.test(line)) cls = 'gd';
    else if (/^(?:> |\+)/.test(line)) cls = 'gi';
    return { text: line, cls };
  });
}

/** Lines matching the style's header pattern become one keyword piece each. */
function headerLines(pieces: Piece[], header: RegExp): Piece[] {
  const out: Piece[] = [];
  let line: Piece[] = [];
  const flush = () => {
    const text = line.map((p) => p.text).join('');
    if (header.test(text)) out.push({ text, cls: 'k' });
    else out.push(...line);
    line = [];
  };
  for (const piece of pieces) {
    const parts = piece.text.split('\n');
    parts.forEach((text, i) => {
      if (i > 0) {
        flush();
        out.push({ text: '\n', cls: '' });
      }
      line.push({ text, cls: piece.cls });
    });
  }
  flush();
  return out;
}

/** Adjacent pieces of one class become one span, as Pygments merges tokens of one type. */
function merge(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    if (p.text === '') continue;
    const last = out[out.length - 1];
    if (last && last.cls === p.cls) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

/**
 * Some Prism patterns take time quadratic in the length of a word (JavaScript's on a 9,000
 * character identifier: most of a second). Prism sees no word longer than this: a longer one
 * is cut by spaces that come out again after tokenizing, so its pieces keep their classes but
 * for a character or two at each cut, and highlighting takes time linear in the code's length.
 */
const WORD_LIMIT = 100;
const LONG_WORD_RE = new RegExp(`\\S{${WORD_LIMIT + 1},}`, 'g');

/** The code with a space after every WORD_LIMIT characters of a word, and where those went. */
function cutLongWords(code: string): { text: string; cuts: number[] } {
  const cuts: number[] = [];
  let added = 0;
  const text = code.replace(LONG_WORD_RE, (word: string, offset: number) => {
    let out = '';
    for (let i = 0; i < word.length; i += WORD_LIMIT) {
      if (i > 0) {
        cuts.push(offset + added + out.length);
        out += ' ';
      }
      out += word.slice(i, i + WORD_LIMIT);
    }
    added += out.length - word.length;
    return out;
  });
  return { text, cuts };
}

/**
 * The pieces without the spaces cutLongWords added (`cuts`: their offsets, ascending). A word
 * Prism read as two because of a cut is one again: the part after the cut takes the class of
 * the part before (`def` and a long name: all of it is the function's name).
 */
function uncut(pieces: Piece[], cuts: number[]): Piece[] {
  if (cuts.length === 0) return pieces;
  const out: Piece[] = [];
  let next = 0;
  let offset = 0;
  let joinsWord = false;
  for (const { text, cls } of pieces) {
    const start = offset;
    offset += text.length;
    let kept = text;
    let cut = cuts[next];
    if (cut !== undefined && cut < offset) {
      kept = '';
      let from = 0;
      while (cut !== undefined && cut < offset) {
        kept += text.slice(from, cut - start);
        from = cut - start + 1;
        next++;
        cut = cuts[next];
      }
      kept += text.slice(from);
      // A cut that was a piece of its own fell between two of Prism's tokens.
      if (kept === '') {
        joinsWord = true;
        continue;
      }
    }
    const before = out[out.length - 1];
    if (joinsWord && before && /\w$/.test(before.text) && /^\w+$/.test(kept)) {
      before.text += kept;
    } else {
      out.push({ text: kept, cls });
    }
    joinsWord = false;
  }
  return out;
}

/** The code as Pygments-classed pieces, or undefined when the language has no grammar. */
export function highlightPieces(code: string, language: CodeLanguage): Piece[] | undefined {
  if (language.style === 'diff') return merge(diffPieces(code));
  if (!language.prism || !language.style) return undefined;
  const g = grammar(language.prism);
  if (!g) return undefined;
  const classifier = new Classifier(STYLES[language.style]);
  const { text, cuts } = cutLongWords(code);
  try {
    classifier.add(Prism.tokenize(text, g), null);
  } catch {
    // Like Zulip when Pygments fails: the block is still shown, unhighlighted.
    return undefined;
  }
  const pieces = uncut(classifier.pieces, cuts);
  const { headerLine } = STYLES[language.style] as LexerStyle;
  return merge(headerLine ? headerLines(pieces, headerLine) : pieces);
}

/** Pygments' HtmlFormatter: each line of a piece is its own span. */
export function piecesToHtml(pieces: Piece[], escape: (text: string) => string): string {
  const html: string[] = [];
  for (const { text, cls } of pieces) {
    const escaped = escape(text);
    if (!cls) html.push(escaped);
    else if (!escaped.includes('\n')) html.push(`<span class="${cls}">${escaped}</span>`);
    else {
      const lines = escaped.split('\n');
      html.push(
        lines.map((line) => (line ? `<span class="${cls}">${line}</span>` : '')).join('\n'),
      );
    }
  }
  return html.join('');
}
