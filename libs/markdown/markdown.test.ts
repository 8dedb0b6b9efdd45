import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  emojiCodeForName,
  emojiNameForCode,
  findAlertWords,
  linkifyTopic,
  renderMarkdown,
  validateLinkifier,
  ZULIP_EXTRA_EMOJI,
  type LinkableStream,
  type MarkdownContext,
  type MentionableGroup,
  type MentionableUser,
} from './index';

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  marked_expected_output?: string;
  backend_only_rendering?: boolean;
  translate_emoticons?: boolean;
}

interface Fixture {
  regular_tests: RegularCase[];
  linkify_tests: [string, string, string][];
}

const readFixture = (name: string) =>
  JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8')) as Fixture;
/**
 * Zulip's whole case file: the shared reference's cases, and the rest of Zulip's
 * markdown_test_cases.json (markdown-cases-full.json names its commit).
 */
const reference = readFixture('markdown-cases.json');
const rest = readFixture('markdown-cases-full.json');
const fixture: Fixture = {
  regular_tests: [...reference.regular_tests, ...rest.regular_tests],
  linkify_tests: [...reference.linkify_tests, ...rest.linkify_tests],
};

/**
 * Cases we do not pass, with the reason. Must stay at or under 10% of all cases.
 */
const skipped: Record<string, string> = {};

/**
 * Cases with a `marked_expected_output` (Zulip's JS renderer) where we follow Zulip's backend
 * (`expected_output`) instead, because the backend is what a server stores.
 */
const preferBackendOutput: Record<string, string> = {
  two_space_not_code_block: 'backend strips leading spaces of a paragraph',
  fragment_link: 'backend rewrites realm links to relative #narrow links',
  translate_emoticons_between_symbols: 'backend translates emoticons between punctuation',
  safe_html_with_simple_script_tag: 'marked keeps stray blank lines from its HTML pass',
  safe_html_unclosed_tag: 'marked keeps stray blank lines from its HTML pass',
  safe_html_unclosed_tag_and_quotes: 'marked keeps stray blank lines from its HTML pass',
  spoilers_script_tags: 'marked keeps stray blank lines from its HTML pass',
  edge_case_embedded_link_inside_Italic: 'marked keeps stray blank lines from its HTML pass',
  timestamp_backend_markdown_only: 'backend renders <time> with the parsed date',
  auto_renumbered_list_blankline: 'backend puts a newline between <li> and <p>',
  multiline_strong: 'backend emphasis never spans lines (and does not escape quotes)',
  spoiler_with_inline_image: 'backend adds image previews',
  codeblock_hilite_python: 'backend highlights code with Pygments',
  codeblock_canonicalize_lang_alias: 'backend highlights code with Pygments',
  codeblock_hilite_shebang_feature_with_path: 'backend highlights code with Pygments',
  codeblock_hilite_startinline_php: 'backend highlights code with Pygments',
  tex_fenced_tex: 'backend highlights code with Pygments',
  tex_fenced_latex: 'backend highlights code with Pygments',
  codeblock_hilite_shebang_feature_no_path_1: 'backend highlights code with Pygments',
  codeblock_hilite_shebang_feature_no_path_2: 'backend highlights code with Pygments',
  ulist_mixed_bullets: 'backend joins lists whose bullets differ',
  ulist_codeblock_interference: 'backend puts a newline between <li> and <p>',
  ulist_hanging_mixed: 'backend puts a newline between <li> and <p>',
  timestamp_invalid_input: 'backend renders the timestamp error text',
  timestamp_timezone: 'backend renders <time> with the parsed date',
  timestamp_incorrect: 'backend renders the timestamp error text',
  edge_case_embedded_link_inside_Bold: 'marked keeps stray blank lines from its HTML pass',
};

// ---- The test data Zulip's own suite uses (learned from the expected HTML). ----
const users: MentionableUser[] = [
  { id: 8, fullName: "Cordelia, Lear's daughter", email: 'cordelia@zulip.com', isActive: true },
  { id: 10, fullName: 'King Hamlet', email: 'hamlet@zulip.com', isActive: true },
  { id: 11, fullName: 'Iago', email: 'iago@zulip.com', isActive: true },
  { id: 12, fullName: 'Othello, the Moor of Venice', email: 'othello@zulip.com', isActive: false },
  { id: 13, fullName: 'Mark Twin', email: 'twin1@zulip.com', isActive: true },
  { id: 14, fullName: 'Mark Twin', email: 'twin2@zulip.com', isActive: true },
];
const groups: MentionableGroup[] = [
  { id: 2, name: 'hamletcharacters' },
  { id: 3, name: 'support' },
];
const streams: LinkableStream[] = [
  { id: 1, name: 'Denmark' },
  { id: 3, name: 'Verona' },
  { id: 5, name: 'Rome' },
];

function makeContext(overrides: Partial<MarkdownContext> = {}): MarkdownContext {
  return {
    realmUrl: 'http://zulip.testserver',
    lookupUsersByName: async (names) => {
      const wanted = new Set(names.map((n) => n.toLowerCase()));
      return users.filter((u) => wanted.has(u.fullName.toLowerCase()));
    },
    lookupUsersById: async (ids) => users.filter((u) => ids.includes(u.id)),
    lookupGroupsByName: async (names) => {
      const wanted = new Set(names.map((n) => n.toLowerCase()));
      return groups.filter((g) => wanted.has(g.name.toLowerCase()));
    },
    lookupStreamsByName: async (names) => {
      const wanted = new Set(names.map((n) => n.toLowerCase()));
      return streams.filter((s) => wanted.has(s.name.toLowerCase()));
    },
    realmEmoji: [
      {
        id: '1',
        name: 'green_tick',
        sourceUrl: '/user_avatars/2/emoji/images/1.png',
        deactivated: false,
      },
    ],
    linkifiers: [
      {
        id: 1,
        pattern: '#(?P<id>[0-9]{2,8})',
        urlTemplate: 'https://trac.example.com/ticket/{id}',
      },
    ],
    ...overrides,
  };
}

function expectedFor(c: RegularCase): string {
  if (c.marked_expected_output !== undefined && !(c.name in preferBackendOutput)) {
    return c.marked_expected_output;
  }
  return c.expected_output;
}

/** Zulip's test helper: the URL in a linkify case becomes a link with this href. */
function linkifyHref(url: string): string {
  if (url.startsWith('http')) return url;
  if (url.includes('@')) return `mailto:${url}`;
  return `http://${url}`;
}

interface Case {
  name: string;
  input: string;
  expected: string;
  ctx: MarkdownContext;
}

const cases: Case[] = [
  ...fixture.regular_tests.map((c) => ({
    name: c.name,
    input: c.input,
    expected: expectedFor(c),
    ctx: makeContext({ translateEmoticons: c.translate_emoticons === true }),
  })),
  ...fixture.linkify_tests.map(([input, template, url], i) => ({
    name: `linkify_${i}: ${input}`,
    input,
    expected: url ? template.replace('%s', `<a href="${linkifyHref(url)}">${url}</a>`) : template,
    ctx: makeContext(),
  })),
];

describe('Zulip markdown fixture', () => {
  it('skips at most 10% of the cases, and only ones that exist', () => {
    const names = new Set(cases.map((c) => c.name));
    for (const name of Object.keys(skipped)) expect(names).toContain(name);
    for (const name of Object.keys(preferBackendOutput)) expect(names).toContain(name);
    expect(Object.keys(skipped).length).toBeLessThanOrEqual(cases.length * 0.1);
  });

  it.each(cases.filter((c) => !(c.name in skipped)).map((c) => [c.name, c] as const))(
    '%s',
    async (_name, c) => {
      const result = await renderMarkdown(c.input, c.ctx);
      expect(result.html).toBe(c.expected);
    },
  );
});

describe('mentions', () => {
  it('finds user mentions by name and by id, case-insensitively', async () => {
    const r = await renderMarkdown('hi @**king hamlet** and @**Iago|11**', makeContext());
    expect(r.html).toBe(
      '<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span> and ' +
        '<span class="user-mention" data-user-id="11">@Iago</span></p>',
    );
    expect(r.mentionedUserIds.sort()).toEqual([10, 11]);
    expect(r.streamWildcardMentioned).toBe(false);
  });

  it('renders silent mentions without counting them', async () => {
    const r = await renderMarkdown('@_**King Hamlet** said so', makeContext());
    expect(r.html).toBe(
      '<p><span class="user-mention silent" data-user-id="10">King Hamlet</span> said so</p>',
    );
    expect(r.mentionedUserIds).toEqual([]);
  });

  it('leaves unknown, ambiguous and mismatched-id mentions as text', async () => {
    const r = await renderMarkdown('@**Nobody** @**Mark Twin** @**Iago|10**', makeContext());
    expect(r.html).toBe(
      '<p>@<strong>Nobody</strong> @<strong>Mark Twin</strong> @<strong>Iago|10</strong></p>',
    );
    expect(r.mentionedUserIds).toEqual([]);
    const byId = await renderMarkdown('@**Mark Twin|14**', makeContext());
    expect(byId.mentionedUserIds).toEqual([14]);
  });

  it('does not notify deactivated users', async () => {
    const r = await renderMarkdown('@**Othello, the Moor of Venice**', makeContext());
    expect(r.html).toContain('class="user-mention silent" data-user-id="12"');
    expect(r.mentionedUserIds).toEqual([]);
  });

  it('sets the wildcard flags', async () => {
    for (const w of ['all', 'everyone', 'channel', 'stream']) {
      const r = await renderMarkdown(`@**${w}** look`, makeContext());
      expect(r.streamWildcardMentioned).toBe(true);
      expect(r.topicWildcardMentioned).toBe(false);
      expect(r.html).toBe(
        `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${w}</span> look</p>`,
      );
    }
    const topic = await renderMarkdown('@**topic**', makeContext());
    expect(topic.topicWildcardMentioned).toBe(true);
    expect(topic.streamWildcardMentioned).toBe(false);
    expect(topic.html).toBe('<p><span class="topic-mention">@topic</span></p>');
    const silent = await renderMarkdown('@_**all** @_**topic**', makeContext());
    expect(silent.streamWildcardMentioned).toBe(false);
    expect(silent.topicWildcardMentioned).toBe(false);
  });

  it('mentions user groups, silently or not', async () => {
    const r = await renderMarkdown('@*hamletcharacters* and @_*support*', makeContext());
    expect(r.html).toBe(
      '<p><span class="user-group-mention" data-user-group-id="2">@hamletcharacters</span> and ' +
        '<span class="user-group-mention silent" data-user-group-id="3">support</span></p>',
    );
    expect(r.mentionedGroupIds).toEqual([2]);
    expect(r.mentionedUserIds).toEqual([]);
  });

  it('ignores mentions inside code', async () => {
    const r = await renderMarkdown('`@**King Hamlet**`\n```\n@**all**\n```', makeContext());
    expect(r.mentionedUserIds).toEqual([]);
    expect(r.streamWildcardMentioned).toBe(false);
  });

  it('asks for each kind of lookup at most once', async () => {
    const calls: string[] = [];
    const base = makeContext();
    const ctx = makeContext({
      lookupUsersByName: async (names) => {
        calls.push(`users:${names.sort().join(',')}`);
        return base.lookupUsersByName(names);
      },
      lookupStreamsByName: async (names) => {
        calls.push(`streams:${names.sort().join(',')}`);
        return base.lookupStreamsByName(names);
      },
    });
    await renderMarkdown(
      '@**King Hamlet** @**Iago** #**Verona** #**Denmark>x** @**King Hamlet**',
      ctx,
    );
    expect(calls.sort()).toEqual(['streams:Denmark,Verona', 'users:Iago,King Hamlet']);
  });
});

describe('channel and topic links', () => {
  it('links channels, topics and messages', async () => {
    const r = await renderMarkdown(
      '#**Verona** #**Verona>hello world** #**Denmark>a.b@123** #**Nowhere**',
      makeContext(),
    );
    expect(r.html).toBe(
      '<p><a class="stream" data-stream-id="3" href="/#narrow/channel/3-Verona">#Verona</a> ' +
        '<a class="stream-topic" data-stream-id="3" href="/#narrow/channel/3-Verona/topic/hello.20world">' +
        '#Verona &gt; hello world</a> ' +
        '<a class="message-link" href="/#narrow/channel/1-Denmark/topic/a.2Eb/near/123">' +
        '#Denmark &gt; a.b @ 💬</a> #<strong>Nowhere</strong></p>',
    );
  });

  it('shows the empty topic display name', async () => {
    const r = await renderMarkdown(
      '#**Verona>**',
      makeContext({ emptyTopicDisplayName: 'general chat' }),
    );
    expect(r.html).toContain('#Verona &gt; <em>general chat</em></a>');
  });
});

describe('escaping and safety', () => {
  it('escapes raw HTML', async () => {
    const r = await renderMarkdown(
      '<script>alert("x")</script> <img src=x onerror=y>',
      makeContext(),
    );
    expect(r.html).toBe(
      '<p>&lt;script&gt;alert("x")&lt;/script&gt; &lt;img src=x onerror=y&gt;</p>',
    );
  });

  it('passes entities through but never tags', async () => {
    const r = await renderMarkdown('a &nbsp; b &amp; c & d &<b>;', makeContext());
    expect(r.html).toBe('<p>a &nbsp; b &amp; c &amp; d &amp;&lt;b&gt;;</p>');
  });

  it('drops javascript: links', async () => {
    const r = await renderMarkdown('[x](javascript:alert(1))', makeContext());
    expect(r.html).not.toContain('<a');
    expect(r.hasLink).toBe(false);
  });
});

describe('message flags', () => {
  it('detects links, attachments and images', async () => {
    const plain = await renderMarkdown('nothing here', makeContext());
    expect(plain).toMatchObject({ hasLink: false, hasAttachment: false, hasImage: false });
    const link = await renderMarkdown('see https://example.com', makeContext());
    expect(link).toMatchObject({ hasLink: true, hasAttachment: false });
    const file = await renderMarkdown('[a.pdf](/user_uploads/2/ab/a.pdf)', makeContext());
    expect(file).toMatchObject({ hasLink: true, hasAttachment: true, hasImage: false });
    const image = await renderMarkdown('[a.png](/user_uploads/2/ab/a.png)', makeContext());
    expect(image).toMatchObject({ hasAttachment: true, hasImage: true });
  });

  it('detects /me messages', async () => {
    expect((await renderMarkdown('/me waves', makeContext())).isMeMessage).toBe(true);
    expect((await renderMarkdown('/me waves\nagain', makeContext())).isMeMessage).toBe(false);
    expect((await renderMarkdown('hi /me', makeContext())).isMeMessage).toBe(false);
  });
});

describe('emoji', () => {
  it('renders realm and Zulip emoji as images', async () => {
    const r = await renderMarkdown(':green_tick: :zulip:', makeContext());
    expect(r.html).toBe(
      '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"> ' +
        '<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>',
    );
  });

  it('exports name/code lookups', () => {
    expect(emojiCodeForName('smile')).toBe('1f642');
    expect(emojiCodeForName('thumbs_up')).toBe('1f44d');
    expect(emojiCodeForName('+1')).toBe('1f44d');
    expect(emojiCodeForName('no_such_emoji')).toBeUndefined();
    expect(emojiNameForCode('1f642')).toBe('smile');
    expect(ZULIP_EXTRA_EMOJI.map((e) => e.name)).toEqual(['zulip']);
  });
});

describe('math', () => {
  it('renders inline and block math with KaTeX', async () => {
    const r = await renderMarkdown('$$x^2$$\n\n```math\n\\frac{1}{2}\n```', makeContext());
    expect(r.html).toMatch(/^<p><span class="katex">/);
    expect(r.html).toContain('<p><span class="katex-display">');
  });
});

describe('linkifiers', () => {
  const ctx = makeContext({
    linkifiers: [
      {
        id: 1,
        pattern: '#(?P<id>[0-9]{2,8})',
        urlTemplate: 'https://trac.example.com/ticket/{id}',
      },
      {
        id: 2,
        pattern: '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)',
        urlTemplate: 'https://github.com/{org}/{repo}/issues/{id}',
      },
    ],
  });

  it('links matches in messages', async () => {
    const r = await renderMarkdown('see #1234 and zulip/zulip#55, not a#12 or #1', ctx);
    expect(r.html).toBe(
      '<p>see <a href="https://trac.example.com/ticket/1234">#1234</a> and ' +
        '<a href="https://github.com/zulip/zulip/issues/55">zulip/zulip#55</a>, not a#12 or #1</p>',
    );
    expect(r.hasLink).toBe(true);
  });

  it('does not link inside code', async () => {
    const r = await renderMarkdown('`#1234`', ctx);
    expect(r.html).toBe('<p><code>#1234</code></p>');
  });

  it('links topics, with linkifiers and bare URLs', () => {
    expect(
      linkifyTopic('fix #123 see https://example.com/x and zulip.com', ctx.linkifiers),
    ).toEqual([
      { text: '#123', url: 'https://trac.example.com/ticket/123' },
      { text: 'https://example.com/x', url: 'https://example.com/x' },
      { text: 'zulip.com', url: 'https://zulip.com' },
    ]);
    expect(linkifyTopic('nothing', ctx.linkifiers)).toEqual([]);
    // Linkifiers win over bare URLs in topics.
    expect(linkifyTopic('a/b#12', ctx.linkifiers)).toEqual([
      { text: 'a/b#12', url: 'https://github.com/a/b/issues/12' },
    ]);
  });

  it('expands RFC 6570 operators', () => {
    const l = [{ id: 1, pattern: 'Q(?P<q>[a-z ]+)!', urlTemplate: 'https://s.example/?{?q}' }];
    expect(linkifyTopic('Qhello world!', l)).toEqual([
      { text: 'Qhello world!', url: 'https://s.example/??q=hello%20world' },
    ]);
  });

  it('validates patterns and templates with Zulip messages', () => {
    expect(() => validateLinkifier('#(?P<id>[0-9]+)', 'https://x/{id}')).not.toThrow();
    expect(() => validateLinkifier('#(?P<id>[0-9]+', 'https://x/{id}')).toThrow(
      /^Bad regular expression/,
    );
    expect(() => validateLinkifier('#(?P<id>[0-9]+)', 'https://x/{id')).toThrow(
      'Invalid URL template.',
    );
    expect(() => validateLinkifier('#(?P<id>[0-9]+)', 'https://x/{num}')).toThrow(
      "Group 'num' in URL template is not present in linkifier pattern.",
    );
    expect(() => validateLinkifier('#(?P<id>[0-9]+)(?P<x>a)', 'https://x/{id}')).toThrow(
      "Group 'x' in linkifier pattern is not present in URL template.",
    );
  });
});

describe('alert words', () => {
  it('matches whole words case-insensitively', () => {
    expect(findAlertWords('Hello World!', ['world'])).toBe(true);
    expect(findAlertWords('worldwide', ['world'])).toBe(false);
    expect(findAlertWords('(c++) rocks', ['c++'])).toBe(true);
    expect(findAlertWords('nothing', [])).toBe(false);
    expect(findAlertWords('ping me, Hamlet!', ['hamlet'])).toBe(true);
    expect(findAlertWords('hamlets', ['hamlet'])).toBe(false);
  });
});

describe('code blocks', () => {
  const codeDiv = (lang: string | null, code: string) =>
    `<div class="codehilite"${lang === null ? '' : ` data-code-language="${lang}"`}>` +
    `<pre><span></span><code>${code}\n</code></pre></div>`;

  it('keeps a language Pygments does not know, lowercased as Zulip does', async () => {
    const r = await renderMarkdown('```MyLang\nx = 1\n```', makeContext());
    expect(r.html).toBe(codeDiv('mylang', 'x = 1'));
  });

  it("applies the organization's default language to fences that name none", async () => {
    const ctx = makeContext({ defaultCodeBlockLanguage: 'python' });
    const python = '<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span>';
    const js = '<span class="nx">x</span> <span class="o">=</span> <span class="mf">1</span>';
    expect((await renderMarkdown('```\nx = 1\n```', ctx)).html).toBe(codeDiv('Python', python));
    expect((await renderMarkdown('```js\nx = 1\n```', ctx)).html).toBe(codeDiv('JavaScript', js));
    // Indented code is no fence, and fences inside spoilers keep no language.
    expect((await renderMarkdown('    x = 1', ctx)).html).toBe(codeDiv(null, 'x = 1'));
    const spoiler = await renderMarkdown('```spoiler Title\n~~~\nx = 1\n~~~\n```', ctx);
    expect(spoiler.html).toContain(codeDiv(null, 'x = 1'));
    const quote = await renderMarkdown('```quote\n~~~\nx = 1\n~~~\n```', ctx);
    expect(quote.html).toBe(`<blockquote>\n${codeDiv('Python', python)}\n</blockquote>`);
  });

  it('turns fences into quotes when the default language is quote', async () => {
    const ctx = makeContext({ defaultCodeBlockLanguage: 'quote' });
    expect((await renderMarkdown('```\nhi\n```', ctx)).html).toBe(
      '<blockquote>\n<p>hi</p>\n</blockquote>',
    );
  });
});
