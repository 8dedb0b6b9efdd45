import Prism from 'prismjs';
import { renderMarkdown, type MarkdownContext } from './index';
import { normalizeWhitespace } from './whitespace';

const ctx: MarkdownContext = {
  realmUrl: 'http://zulip.testserver',
  lookupUsersByName: async () => [],
  lookupUsersById: async () => [],
  lookupGroupsByName: async () => [],
  lookupStreamsByName: async () => [],
  realmEmoji: [],
  linkifiers: [],
};

async function codeBlock(lang: string, code: string): Promise<string> {
  return (await renderMarkdown(`\`\`\`${lang}\n${code}\n\`\`\``, ctx)).html;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * One snippet per lexer (by one of its Pygments aliases), the lexer's name for
 * data-code-language, and spans Pygments gives it: [class, text].
 */
const LANGUAGES: [string, string, string, [string, string][]][] = [
  [
    'python',
    'Python',
    "def f(self):\n    return 'x' + 1  # c",
    [
      ['k', 'def'],
      ['nf', 'f'],
      ['bp', 'self'],
      ['s1', "'x'"],
      ['mi', '1'],
      ['c1', '# c'],
    ],
  ],
  [
    'js',
    'JavaScript',
    'const x = 1; // c\nf("s");',
    [
      ['kd', 'const'],
      ['nx', 'x'],
      ['mf', '1'],
      ['c1', '// c'],
      ['s2', '"s"'],
    ],
  ],
  [
    'ts',
    'TypeScript',
    'let n: number = 2;',
    [
      ['kd', 'let'],
      ['kt', 'number'],
      ['mf', '2'],
    ],
  ],
  [
    'java',
    'Java',
    'public class A { int x = 1; }',
    [
      ['kd', 'public'],
      ['nc', 'A'],
      ['kt', 'int'],
      ['mi', '1'],
    ],
  ],
  [
    'c',
    'C',
    '#include <stdio.h>\nint main(void) { return 0; }',
    [
      ['cp', '#include'],
      ['kt', 'int'],
      ['nf', 'main'],
      ['k', 'return'],
    ],
  ],
  [
    'c++',
    'C++',
    'int x = 0; /* c */',
    [
      ['kt', 'int'],
      ['cm', '/* c */'],
    ],
  ],
  [
    'c#',
    'C#',
    'var s = "x";',
    [
      ['kt', 'var'],
      ['s', '"x"'],
    ],
  ],
  [
    'golang',
    'Go',
    'package main\nfunc main() {}',
    [
      ['kn', 'package'],
      ['kd', 'func'],
      ['nf', 'main'],
    ],
  ],
  [
    'rs',
    'Rust',
    'fn main() { let x: i32 = 5; println!("{}", x); }',
    [
      ['k', 'fn'],
      ['kt', 'i32'],
      ['fm', 'println!'],
      ['s', '"{}"'],
    ],
  ],
  [
    'rb',
    'Ruby',
    'def hi\n  puts :sym if @x\nend',
    [
      ['k', 'def'],
      ['nf', 'hi'],
      ['nb', 'puts'],
      ['ss', ':sym'],
      ['vi', '@x'],
    ],
  ],
  [
    'php',
    'PHP',
    '$x = 1; echo "hi";',
    [
      ['nv', '$x'],
      ['k', 'echo'],
      ['s2', '"hi"'],
    ],
  ],
  [
    'shell',
    'Bash',
    'echo "$f" | grep x # c',
    [
      ['nb', 'echo'],
      ['nv', '$f'],
      ['p', '|'],
      ['c1', '# c'],
    ],
  ],
  [
    'console',
    'Bash Session',
    '$ ls\nfile.txt',
    [
      ['gp', '$'],
      ['go', 'file.txt'],
    ],
  ],
  [
    'sql',
    'SQL',
    "SELECT id FROM t WHERE n = 'x';",
    [
      ['k', 'SELECT'],
      ['n', 'id'],
      ['s1', "'x'"],
      ['o', '='],
    ],
  ],
  [
    'json',
    'JSON',
    '{"a": [1, true]}',
    [
      ['nt', '"a"'],
      ['mi', '1'],
      ['kc', 'true'],
    ],
  ],
  [
    'yaml',
    'YAML',
    'name: my app # c',
    [
      ['nt', 'name'],
      ['l l-Scalar l-Scalar-Plain', 'my app'],
      ['c1', '# c'],
    ],
  ],
  [
    'html',
    'HTML',
    '<a href="x">y</a>',
    [
      ['nt', 'a'],
      ['na', 'href'],
      ['s', '"x"'],
      ['p', '&lt;/'],
    ],
  ],
  [
    'xml',
    'XML',
    '<?xml version="1.0"?>\n<a/>',
    [
      ['cp', '&lt;?xml version="1.0"?&gt;'],
      ['nt', 'a'],
    ],
  ],
  [
    'css',
    'CSS',
    '.a #b { color: #fff; }',
    [
      ['nc', '.a'],
      ['nn', '#b'],
      ['k', 'color'],
      ['mh', '#fff'],
    ],
  ],
  [
    'kotlin',
    'Kotlin',
    'fun f() { val x: Int = 1 }',
    [
      ['k', 'fun'],
      ['nf', 'f'],
      ['kd', 'val'],
      ['kt', 'Int'],
    ],
  ],
  [
    'swift',
    'Swift',
    'func f() { let x = 1 }',
    [
      ['kd', 'func'],
      ['nf', 'f'],
      ['kd', 'let'],
    ],
  ],
  [
    'scala',
    'Scala',
    'def f(x: Int) = x',
    [
      ['kd', 'def'],
      ['nf', 'f'],
      ['kt', 'Int'],
    ],
  ],
  [
    'hs',
    'Haskell',
    'module Main where\nmain = putStrLn "hi" -- c',
    [
      ['kn', 'module'],
      ['kr', 'where'],
      ['s', '"hi"'],
      ['c1', '-- c'],
    ],
  ],
  [
    'lua',
    'Lua',
    'local x = nil -- c',
    [
      ['kd', 'local'],
      ['kc', 'nil'],
      ['c1', '-- c'],
    ],
  ],
  [
    'perl',
    'Perl',
    'my $x = 1; print "hi";',
    [
      ['nv', '$x'],
      ['nb', 'print'],
      ['s2', '"hi"'],
    ],
  ],
  [
    'r',
    'S',
    'x <- c(1, 2) # c',
    [
      ['o', '&lt;-'],
      ['mi', '1'],
      ['c1', '# c'],
    ],
  ],
  [
    'md',
    'Markdown',
    '# Title\n**bold** and `code`',
    [
      ['gh', '# Title'],
      ['gs', '**bold**'],
      ['sb', '`code`'],
    ],
  ],
  [
    'udiff',
    'Diff',
    '-old\n+new',
    [
      ['gd', '-old'],
      ['gi', '+new'],
    ],
  ],
  [
    'dockerfile',
    'Docker',
    'FROM node:20\nRUN npm ci',
    [
      ['k', 'FROM'],
      ['k', 'RUN'],
    ],
  ],
  [
    'ini',
    'INI',
    '[core]\nname = value',
    [
      ['k', '[core]'],
      ['na', 'name'],
      ['s', 'value'],
    ],
  ],
  [
    'toml',
    'TOML',
    '[tool.x]\nkey = "v"',
    [
      ['k', '[tool.x]'],
      ['n', 'key'],
      ['o', '='],
      ['s2', '"v"'],
    ],
  ],
  ['makefile', 'Makefile', 'all: build\n\tcc -o x', [['nf', 'all']]],
  [
    'elixir',
    'Elixir',
    'defmodule A do\n  def f, do: :ok\nend',
    [
      ['k', 'defmodule'],
      ['nc', 'A'],
      ['ss', ':ok'],
    ],
  ],
  [
    'latex',
    'TeX',
    '\\section{A}',
    [
      ['k', '\\section'],
      ['nb', '{'],
    ],
  ],
];

describe('syntax highlighting', () => {
  it('loads a grammar only when a message needs it, once', async () => {
    expect('haskell' in Prism.languages).toBe(false);
    await codeBlock('python', 'x = 1');
    expect('haskell' in Prism.languages).toBe(false);
    await codeBlock('haskell', 'x = 1');
    const haskell = Prism.languages.haskell;
    expect(haskell).toBeDefined();
    await codeBlock('haskell', 'y = 2');
    expect(Prism.languages.haskell).toBe(haskell);
  });

  it(`covers ${LANGUAGES.length} lexers`, () => {
    expect(new Set(LANGUAGES.map(([, name]) => name)).size).toBeGreaterThanOrEqual(30);
  });

  it.each(LANGUAGES)('highlights %s as Pygments names it (%s)', async (lang, name, code, spans) => {
    const html = await codeBlock(lang, code);
    expect(html.startsWith(`<div class="codehilite" data-code-language="${name}">`)).toBe(true);
    for (const [cls, text] of spans) expect(html).toContain(`<span class="${cls}">${text}</span>`);
    // The text is all there, in order, once the spans are taken out (tabs expanded, as Zulip's
    // Python-Markdown does before it finds code blocks).
    const text = html
      .replace(/^<div[^>]*><pre><span><\/span><code>/, '')
      .replace(/\n<\/code><\/pre><\/div>$/, '')
      .replace(/<\/?span[^>]*>/g, '');
    expect(text).toBe(escape(normalizeWhitespace(code)));
  });

  it.each([
    ['py3', 'Python'],
    ['py2', 'Python 2.x'],
    ['JavaScript', 'JavaScript'],
    ['zsh', 'Bash'],
    ['yml', 'YAML'],
    ['cs', 'C#'],
    ['objc', 'Objective-C'],
    ['ps1', 'PowerShell'],
    ['docker', 'Docker'],
    ['cfg', 'INI'],
    ['make', 'Makefile'],
    ['exs', 'Elixir'],
    ['tex', 'TeX'],
    ['html+php', 'HTML+PHP'],
    ['js+django', 'JavaScript+Django/Jinja'],
  ])('names the lexer of alias %s as Pygments does', async (alias, name) => {
    expect(await codeBlock(alias, 'x')).toContain(`data-code-language="${name}"`);
  });

  it('keeps unknown languages and combinations as plain text, lowercased', async () => {
    expect(await codeBlock('Brainfuck++', '+[-]')).toBe(
      '<div class="codehilite" data-code-language="brainfuck++"><pre><span></span><code>+[-]\n</code></pre></div>',
    );
    expect(await codeBlock('python+php', 'x')).toContain('data-code-language="python+php"');
  });

  it('highlights words of any length, each piece classed as if Prism had seen it whole', async () => {
    // Prism would spend most of a second on such words (quadratic in their length); it is given
    // them in cuts of 100 characters, and the cuts do not show.
    const name = 'x'.repeat(9000);
    const js = await codeBlock('js', `var ${name} = "${'y'.repeat(5000)}"; f(${'1'.repeat(3000)})`);
    expect(js).toContain('<span class="kd">var</span>');
    expect(js).toContain(`<span class="nx">${name}</span>`);
    expect(js).toContain(`<span class="s2">"${'y'.repeat(5000)}"</span>`);
    expect(js).toContain(`<span class="mf">${'1'.repeat(3000)}</span>`);
    const python = await codeBlock(
      'python',
      `def ${'f'.repeat(450)}():\n    return ${'a.b(c)'.repeat(300)}`,
    );
    expect(python).toContain(`<span class="nf">${'f'.repeat(450)}</span>`);
    // Minified code keeps its highlighting past the cuts.
    expect(python.match(/<span class="n">b<\/span>/g)).toHaveLength(300);
    const minified: [string, string][] = [
      ['js', `x = ${'$'.repeat(8000)}`],
      ['yaml', `k: ${'=-'.repeat(4000)}`],
      ['java', `int[] a = {${'1,'.repeat(4000)}};`],
    ];
    for (const [lang, code] of minified) {
      const html = await codeBlock(lang, code);
      const text = html
        .replace(/^<div[^>]*><pre><span><\/span><code>/, '')
        .replace(/\n<\/code><\/pre><\/div>$/, '')
        .replace(/<\/?span[^>]*>/g, '');
      expect(text).toBe(escape(code));
      expect(html).toContain('<span class=');
    }
  });

  it('leaves a fence without language unhighlighted unless a #! or ::: line names one', async () => {
    expect(await codeBlock('', 'def f(): pass')).toBe(
      '<div class="codehilite"><pre><span></span><code>def f(): pass\n</code></pre></div>',
    );
    const bash = await codeBlock('', '#!/usr/bin/env bash\necho hi');
    expect(bash).toContain('<span class="ch">#!/usr/bin/env bash</span>');
    expect(bash).toContain('<span class="nb">echo</span>');
    expect(bash).not.toContain('data-code-language');
  });
});
