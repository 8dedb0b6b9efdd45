/**
 * How one Pygments lexer names what Prism finds. Prism marks keywords, strings, comments,
 * operators and punctuation much as Pygments does; the rest (identifiers, which Pygments also
 * spans) is read from the text Prism leaves plain.
 */
export interface LexerStyle {
  /** Class of an identifier Prism leaves plain ('' leaves it unspanned, as Bash does). */
  name: string;
  /** Class of an identifier after `.` (Java's Name.Attribute); defaults to `name`. */
  attribute?: string;
  /** Class of a call Prism marks as a function (a definition is always `nf`). */
  call?: string;
  /** `mf` where Pygments reads every decimal as a float (JavaScript). */
  integer?: string;
  /** `s` where the lexer has one String type, instead of `s1`/`s2` by quote. */
  string?: string;
  /** How text between Prism's tokens is read: tokenized (default), one scalar, or left. */
  plain?: 'tokens' | 'scalar' | 'text';
  /** Words with their own class (`self` is `bp` in Python), whatever Prism calls them. */
  words?: Record<string, string>;
  /** Prism token types (or aliases) with another class in this lexer. */
  types?: Record<string, string>;
  /** Lines that are one keyword span in Pygments (a TOML `[table]` header). */
  headerLine?: RegExp;
  /** Prism token types whose whole text takes their class, nested tokens included. */
  absorb?: string[];
  /** Class of an operator or punctuation text, where it is not `o`/`p` (Bash). */
  symbol?: (text: string) => string | undefined;
}

/** "a b c" -> { a: cls, b: cls, c: cls }, merged into one table. */
function words(...groups: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [list, cls] of groups) for (const w of list.split(/\s+/)) if (w) out[w] = cls;
  return out;
}

const C_TYPES = 'int char void long short float double unsigned signed bool _Bool size_t auto';

const PYTHON: LexerStyle = {
  name: 'n',
  words: words(
    ['self cls', 'bp'],
    ['True False None', 'kc'],
    ['import from', 'kn'],
    ['and or not in is', 'ow'],
    ['print len range open str int float list dict set tuple type super isinstance', 'nb'],
  ),
};

const JAVASCRIPT: LexerStyle = {
  name: 'nx',
  integer: 'mf',
  words: words(
    ['var let const function class', 'kd'],
    ['true false null undefined NaN Infinity', 'kc'],
    [
      'Array Boolean Date Error Function Math Number Object RegExp String Promise Symbol JSON Map Set',
      'nb',
    ],
    ['window document globalThis', 'nb'],
  ),
  types: { parameter: 'nx', constant: 'nx', 'template-string': 'sb', 'template-punctuation': 'sb' },
};

const TYPESCRIPT: LexerStyle = {
  ...JAVASCRIPT,
  words: {
    ...JAVASCRIPT.words,
    ...words(
      [
        'interface type enum namespace declare abstract implements private protected public readonly',
        'kr',
      ],
      ['any boolean number string void never unknown object bigint symbol', 'kt'],
    ),
  },
};

const JAVA: LexerStyle = {
  name: 'n',
  attribute: 'na',
  call: 'n',
  string: 's',
  words: words(
    [
      'abstract const enum extends final implements native private protected public sealed static',
      'kd',
    ],
    ['strictfp super synchronized throws transient volatile class interface record', 'kd'],
    ['boolean byte char double float int long short void var', 'kt'],
    ['true false null', 'kc'],
    ['import package', 'kn'],
  ),
};

const C_FAMILY: LexerStyle = {
  name: 'n',
  call: 'n',
  string: 's',
  words: words([C_TYPES, 'kt'], ['true false NULL nullptr', 'nb']),
  types: { macro: 'cp', directive: 'cp', 'directive-hash': 'cp' },
};

const CSHARP: LexerStyle = {
  name: 'n',
  call: 'n',
  string: 's',
  words: words(
    [
      'bool byte char decimal double dynamic float int long object sbyte short string uint ulong ushort var void',
      'kt',
    ],
    ['true false null', 'kc'],
    ['using namespace', 'kn'],
  ),
};

const GO: LexerStyle = {
  name: 'nx',
  call: 'nx',
  string: 's',
  words: words(
    ['import package', 'kn'],
    ['var func struct map chan type interface const', 'kd'],
    [
      'bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string',
      'kt',
    ],
    ['uint uint8 uint16 uint32 uint64 uintptr', 'kt'],
    ['true false iota nil', 'kc'],
    ['append cap close copy delete len make new panic print println recover', 'nb'],
  ),
};

const RUST: LexerStyle = {
  name: 'n',
  call: 'n',
  string: 's',
  words: words(
    ['u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 usize isize f32 f64 bool char str', 'kt'],
    ['true false', 'kc'],
    ['use mod crate extern', 'kn'],
    ['let mut fn struct enum impl trait type', 'k'],
    ['Some None Ok Err Self self', 'nb'],
  ),
  types: { macro: 'fm', lifetime: 'nl' },
};

const RUBY: LexerStyle = {
  name: 'n',
  words: words(
    ['true false nil', 'kc'],
    ['self super', 'nb'],
    ['puts print require require_relative attr_accessor attr_reader include extend raise', 'nb'],
  ),
  types: { symbol: 'ss', variable: 'vi' },
};

const PHP: LexerStyle = {
  name: 'nx',
  words: words(['true false null TRUE FALSE NULL', 'kc']),
  types: { variable: 'nv' },
};

/** Pygments' Bash lexer leaves words and `>` as text; `;`, `|`, `&` are punctuation. */
const BASH: LexerStyle = {
  name: '',
  call: '',
  integer: 'm',
  types: {
    'for-or-select': '',
    'assign-left': 'nv',
    parameter: '',
    'file-descriptor': '',
    environment: 'nv',
    'class-name': 'nb',
    'shell-symbol': 'gp',
    info: 'gp',
    output: 'go',
  },
  symbol: (text) => {
    if (/^[;|&]$/.test(text)) return 'p';
    if (/^(?:&&|\|\||[=[\]{}()]|<<<?)$/.test(text)) return 'o';
    return '';
  },
};

const SQL: LexerStyle = {
  name: 'n',
  call: 'n',
  words: words(['int integer varchar text boolean date timestamp serial bigint numeric', 'nb']),
};

const JSON_STYLE: LexerStyle = {
  name: 'n',
  string: 's2',
  types: { property: 'nt', operator: 'p', null: 'kc' },
};

const YAML: LexerStyle = {
  name: 'l l-Scalar l-Scalar-Plain',
  plain: 'scalar',
  types: {
    key: 'nt',
    atrule: 'nt',
    number: 'l l-Scalar l-Scalar-Plain',
    boolean: 'l l-Scalar l-Scalar-Plain',
    null: 'l l-Scalar l-Scalar-Plain',
    important: 'nv',
    directive: 'cp',
    datetime: 'l l-Scalar l-Scalar-Plain',
  },
};

/** HTML and XML: tags `nt` with `<`/`>` as `p`, attributes `na`, values `s`. */
const MARKUP: LexerStyle = {
  name: '',
  plain: 'text',
  types: { 'attr-equals': 'o', 'attr-value': 's', entity: 'ni' },
};

/** CSS: properties are keywords, selectors tags, bare values constants. */
const CSS: LexerStyle = {
  name: 'kc',
  types: {
    property: 'k',
    selector: 'nt',
    atrule: 'k',
    rule: 'k',
    function: 'nb',
    hexcode: 'mh',
    unit: 'kt',
    url: 's',
    important: 'k',
    variable: 'nv',
    class: 'nc',
    id: 'nn',
    'pseudo-class': 'nd',
    'pseudo-element': 'nd',
    combinator: 'o',
    color: 'mh',
  },
};

const KOTLIN: LexerStyle = {
  name: 'n',
  call: 'n',
  string: 's',
  words: words(
    ['val var', 'kd'],
    ['Boolean Byte Char Double Float Int Long Short String Unit Any Nothing', 'kt'],
    ['true false null', 'kc'],
    ['package import', 'kn'],
  ),
};

const SWIFT: LexerStyle = {
  name: 'n',
  call: 'n',
  string: 's',
  words: words(
    ['class deinit enum extension func import init internal let operator private', 'kd'],
    ['protocol public static struct subscript typealias var', 'kd'],
    ['true false nil', 'kc'],
    ['Int Double Float String Bool Character Array Dictionary Set', 'nb'],
  ),
};

const SCALA: LexerStyle = {
  name: 'n',
  call: 'n',
  string: 's',
  words: words(
    ['def val var type class trait object enum given', 'kd'],
    ['true false null', 'kc'],
    ['import package', 'kn'],
    ['Int Long Double Float Boolean String Unit Any Char Byte Short', 'kt'],
  ),
};

const HASKELL: LexerStyle = {
  name: 'n',
  call: 'n',
  string: 's',
  words: words(
    [
      'case class data default deriving do else family if in infix infixl infixr instance let',
      'kr',
    ],
    ['newtype of then type where', 'kr'],
    ['module import qualified as hiding', 'kn'],
  ),
  types: { 'class-name': 'kt', constant: 'kt', 'import-statement': 'kn' },
};

const LUA: LexerStyle = {
  name: 'n',
  call: 'n',
  words: words(
    ['local', 'kd'],
    ['true false nil', 'kc'],
    ['print pairs ipairs require tostring tonumber type error assert pcall setmetatable', 'nb'],
  ),
};

const PERL: LexerStyle = {
  name: 'n',
  call: 'n',
  words: words(['print printf say push pop shift unshift keys values die open close', 'nb']),
  types: { variable: 'nv', filehandle: 'nv' },
};

/** Pygments' R (S) lexer names every call `nf`. */
const R: LexerStyle = {
  name: 'n',
  call: 'nf',
  words: words(['TRUE FALSE NULL NA Inf NaN', 'kc']),
};

const MARKDOWN: LexerStyle = {
  name: '',
  plain: 'text',
  types: {
    bold: 'gs',
    italic: 'ge',
    strike: 'gd',
    code: 'sb',
    'code-snippet': 'sb',
    list: 'k',
    blockquote: 'k',
    url: 'nv',
    hr: 'k',
  },
  absorb: [
    'title',
    'bold',
    'italic',
    'strike',
    'code',
    'code-snippet',
    'list',
    'blockquote',
    'url',
  ],
};

const DOCKER: LexerStyle = {
  name: '',
  plain: 'text',
  types: { keyword: 'k', 'options-key': 'na', variable: 'nv' },
};

/** Pygments' INI: `[section]` is a keyword, keys attributes, values strings. */
const INI: LexerStyle = {
  name: '',
  plain: 'text',
  types: { section: 'k', header: 'k', key: 'na', value: 's', punctuation: 'o' },
  absorb: ['section', 'key', 'value'],
};

/** Pygments' TOML: a `[table]` line is one keyword, `=` an operator. */
const TOML: LexerStyle = {
  name: 'n',
  types: { key: 'n', date: 'l' },
  headerLine: /^\s*\[\[?[^\]]*\]\]?\s*$/,
  symbol: (text) => (text === '=' ? 'o' : undefined),
};

const MAKEFILE: LexerStyle = {
  name: '',
  plain: 'text',
  types: { symbol: 'nf', variable: 'nv', builtin: 'nb', keyword: 'k' },
};

const ELIXIR: LexerStyle = {
  name: 'n',
  call: 'n',
  words: words(['true false nil', 'kc']),
  types: { atom: 'ss', module: 'nc', attribute: 'nd', 'class-name': 'nc', 'attr-name': 'ss' },
};

const LATEX: LexerStyle = {
  name: '',
  plain: 'text',
  types: { function: 'k', punctuation: 'nb', equation: 'nv', keyword: 'k', headline: 'gh' },
};

const GENERIC: LexerStyle = { name: 'n', call: 'n' };

export const STYLES = {
  python: PYTHON,
  javascript: JAVASCRIPT,
  typescript: TYPESCRIPT,
  java: JAVA,
  c: C_FAMILY,
  csharp: CSHARP,
  go: GO,
  rust: RUST,
  ruby: RUBY,
  php: PHP,
  bash: BASH,
  sql: SQL,
  json: JSON_STYLE,
  yaml: YAML,
  markup: MARKUP,
  css: CSS,
  kotlin: KOTLIN,
  swift: SWIFT,
  scala: SCALA,
  haskell: HASKELL,
  lua: LUA,
  perl: PERL,
  r: R,
  markdown: MARKDOWN,
  docker: DOCKER,
  ini: INI,
  toml: TOML,
  makefile: MAKEFILE,
  elixir: ELIXIR,
  latex: LATEX,
  generic: GENERIC,
} satisfies Record<string, LexerStyle>;

export type StyleName = keyof typeof STYLES;
