import { renderMarkdown, type MarkdownContext } from './index';

const ctx: MarkdownContext = {
  realmUrl: 'http://zulip.testserver',
  lookupUsersByName: async () => [],
  lookupUsersById: async () => [],
  lookupGroupsByName: async () => [],
  lookupStreamsByName: async () => [],
  realmEmoji: [],
  linkifiers: [],
};

const render = async (content: string) => (await renderMarkdown(content, ctx)).html;

/** Whitespace as Zulip's Python-Markdown leaves it (NormalizeWhitespace, nl2br, no hard breaks). */
describe('whitespace', () => {
  it.each([
    // Trailing whitespace stays at the end of a paragraph, a line, an item or a quote.
    ['test  ', '<p>test  </p>'],
    ['a   \n\nb  ', '<p>a   </p>\n<p>b  </p>'],
    ['first  \nsecond', '<p>first  <br>\nsecond</p>'],
    ['* item  ', '<ul>\n<li>item  </li>\n</ul>'],
    ['> quote  ', '<blockquote>\n<p>quote  </p>\n</blockquote>'],
    // Headings strip theirs.
    ['# head  ', '<h1>head</h1>'],
    // Tabs become spaces up to the next multiple of 4 columns, code included.
    ['test\t', '<p>test    </p>'],
    ['a\tb', '<p>a   b</p>'],
    [
      '```\nall:\n\tcc -o x\n```',
      '<div class="codehilite"><pre><span></span><code>all:\n    cc -o x\n</code></pre></div>',
    ],
    // Windows line ends are line ends.
    ['a\r\nb', '<p>a<br>\nb</p>'],
  ])('%j', async (input, expected) => {
    expect(await render(input)).toBe(expected);
  });
});
