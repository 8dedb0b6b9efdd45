import type { StyleName } from './pygments-styles';

export interface CodeLanguage {
  /** The Pygments lexer's name, which Zulip puts in `data-code-language`. */
  name: string;
  /** The Prism grammar that tokenizes it; none for Pygments' plain text lexer. */
  prism?: string;
  /** How Prism's tokens become Pygments classes; `diff` is read line by line instead. */
  style?: StyleName | 'diff';
}

/**
 * [Pygments aliases, lexer name, Prism grammar, style]: the lexers people use most. SCSS, Sass
 * and Less are read with the CSS grammar: Prism's own take most of a second on 9,000 characters.
 */
const TABLE: [string, string, string | undefined, StyleName | 'diff' | undefined][] = [
  ['python py sage python3 py3 bazel starlark pyi', 'Python', 'python', 'python'],
  ['python2 py2', 'Python 2.x', 'python', 'python'],
  ['javascript js', 'JavaScript', 'javascript', 'javascript'],
  ['jsx react', 'JSX', 'jsx', 'javascript'],
  ['typescript ts', 'TypeScript', 'typescript', 'typescript'],
  ['tsx', 'TSX', 'tsx', 'typescript'],
  ['coffeescript coffee-script coffee', 'CoffeeScript', 'coffeescript', 'javascript'],
  ['java', 'Java', 'java', 'java'],
  ['groovy', 'Groovy', 'groovy', 'java'],
  ['c', 'C', 'c', 'c'],
  ['cpp c++', 'C++', 'cpp', 'c'],
  ['objective-c objectivec obj-c objc', 'Objective-C', 'objectivec', 'c'],
  ['csharp c# cs', 'C#', 'csharp', 'csharp'],
  ['go golang', 'Go', 'go', 'go'],
  ['rust rs', 'Rust', 'rust', 'rust'],
  ['ruby rb duby', 'Ruby', 'ruby', 'ruby'],
  ['php php3 php4 php5', 'PHP', 'php', 'php'],
  ['bash sh ksh zsh shell openrc', 'Bash', 'bash', 'bash'],
  ['console shell-session', 'Bash Session', 'shell-session', 'bash'],
  ['powershell pwsh posh ps1 psm1', 'PowerShell', 'powershell', 'generic'],
  ['sql', 'SQL', 'sql', 'sql'],
  ['mysql', 'MySQL', 'sql', 'sql'],
  ['postgresql postgres', 'PostgreSQL SQL dialect', 'sql', 'sql'],
  ['json json-object', 'JSON', 'json', 'json'],
  ['yaml yml', 'YAML', 'yaml', 'yaml'],
  ['html', 'HTML', 'markup', 'markup'],
  ['xml', 'XML', 'markup', 'markup'],
  ['css', 'CSS', 'css', 'css'],
  ['scss', 'SCSS', 'css', 'css'],
  ['sass', 'Sass', 'css', 'css'],
  ['less', 'LessCss', 'css', 'css'],
  ['kotlin', 'Kotlin', 'kotlin', 'kotlin'],
  ['swift', 'Swift', 'swift', 'swift'],
  ['scala', 'Scala', 'scala', 'scala'],
  ['dart', 'Dart', 'dart', 'java'],
  ['haskell hs', 'Haskell', 'haskell', 'haskell'],
  ['elm', 'Elm', 'elm', 'haskell'],
  ['ocaml', 'OCaml', 'ocaml', 'generic'],
  ['fsharp f#', 'F#', 'fsharp', 'generic'],
  ['lua', 'Lua', 'lua', 'lua'],
  ['perl pl', 'Perl', 'perl', 'perl'],
  ['splus s r', 'S', 'r', 'r'],
  ['julia jl', 'Julia', 'julia', 'generic'],
  ['matlab', 'Matlab', 'matlab', 'generic'],
  ['markdown md', 'Markdown', 'markdown', 'markdown'],
  ['diff udiff', 'Diff', undefined, 'diff'],
  ['docker dockerfile', 'Docker', 'docker', 'docker'],
  ['ini cfg dosini', 'INI', 'ini', 'ini'],
  ['toml', 'TOML', 'toml', 'toml'],
  ['make makefile mf bsdmake', 'Makefile', 'makefile', 'makefile'],
  ['elixir ex exs', 'Elixir', 'elixir', 'elixir'],
  ['erlang', 'Erlang', 'erlang', 'generic'],
  ['clojure clj', 'Clojure', 'clojure', 'generic'],
  ['tex latex', 'TeX', 'latex', 'latex'],
  ['vim', 'VimL', 'vim', 'generic'],
  ['graphql', 'GraphQL', 'graphql', 'generic'],
  ['nginx', 'Nginx configuration file', 'nginx', 'generic'],
  ['protobuf proto', 'Protocol Buffer', 'protobuf', 'generic'],
  ['terraform tf hcl', 'Terraform', 'hcl', 'generic'],
  ['django jinja', 'Django/Jinja', undefined, undefined],
  ['text', 'Text only', undefined, undefined],
];

const BY_ALIAS = new Map<string, CodeLanguage>();
for (const [aliases, name, prism, style] of TABLE) {
  for (const alias of aliases.split(' ')) BY_ALIAS.set(alias, { name, prism, style });
}

/** Pygments' combined lexers: a template language inside one of these. */
const COMBINED_HOSTS = new Set(['CSS', 'HTML', 'JavaScript', 'XML']);
const COMBINED_EMBEDDED = new Set(['PHP', 'Django/Jinja']);

/**
 * The lexer Zulip (Pygments' find_lexer_class_by_name) picks for a fence's language, matched
 * without case. Pygments' combined lexers (`css+php`) are named from their parts and, since
 * Zulip highlights with `startinline`, read as the embedded (last) language.
 */
export function findCodeLanguage(lang: string): CodeLanguage | undefined {
  const lower = lang.toLowerCase();
  const known = BY_ALIAS.get(lower);
  if (known) return known;
  if (!lower.includes('+')) return undefined;
  const [host, embedded, extra] = lower.split('+').map((p) => BY_ALIAS.get(p));
  if (extra || !host || !embedded) return undefined;
  if (!COMBINED_HOSTS.has(host.name) || !COMBINED_EMBEDDED.has(embedded.name)) return undefined;
  return { ...embedded, name: `${host.name}+${embedded.name}` };
}
