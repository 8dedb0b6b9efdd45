import { at } from '../core/at';
import { findAlertWords } from './alert-words';
import { findLinkifierMatches, linkifyTopic, validateLinkifier } from './linkifiers';
import { renderMarkdown } from './render';
import type { Linkifier, MarkdownContext } from './types';

/** Issue 11: user-supplied patterns run on a linear-time engine (RE2 semantics, as Zulip). */

const context = (linkifiers: Linkifier[]): MarkdownContext => ({
  realmUrl: 'http://chat.test',
  lookupUsersByName: async () => [],
  lookupUsersById: async () => [],
  lookupGroupsByName: async () => [],
  lookupStreamsByName: async () => [],
  realmEmoji: [],
  linkifiers,
});

const CATASTROPHIC: Linkifier = {
  id: 1,
  pattern: '#(?P<id>(a+)+)!',
  urlTemplate: 'https://example.com/{id}',
};

describe('a catastrophic linkifier pattern', () => {
  it('is accepted, as RE2 accepts it, and still links what it matches', async () => {
    expect(() => validateLinkifier(CATASTROPHIC.pattern, CATASTROPHIC.urlTemplate)).not.toThrow();
    const r = await renderMarkdown('see #aaa! now', context([CATASTROPHIC]));
    expect(r.html).toBe('<p>see <a href="https://example.com/aaa">#aaa!</a> now</p>');
  });

  it('renders the 31-character message that froze the process in under 50 ms', async () => {
    const ctx = context([CATASTROPHIC]);
    await renderMarkdown('warm up', ctx);
    const text = `#${'a'.repeat(28)}b!`;
    const started = performance.now();
    const r = await renderMarkdown(text, ctx);
    const ms = performance.now() - started;
    expect(r.html).toBe(`<p>${text}</p>`);
    expect(ms).toBeLessThan(50);
  });

  it('stays linear on a long message too', () => {
    const text = `#${'a'.repeat(20000)}b!`;
    const started = performance.now();
    expect(findLinkifierMatches(text, [CATASTROPHIC])).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('large patterns', () => {
  it('are refused past a program size, in RE2 words', () => {
    expect(() => validateLinkifier('(?P<id>.{1000}.{1000}.{1000})', 'https://x/{id}')).toThrow(
      'Bad regular expression: pattern too large - compile failed',
    );
    expect(() => validateLinkifier('(?P<id>.{900})', 'https://x/{id}')).not.toThrow();
  });
});

describe('linkifier matching on RE2', () => {
  const issue: Linkifier = {
    id: 1,
    pattern: '#(?P<id>[0-9]+)',
    urlTemplate: 'https://example.com/{id}',
  };

  it('lets the character after one match open the next, as Zulip does', () => {
    expect(linkifyTopic('#12,#34 #56', [issue]).map((l) => l.text)).toEqual(['#12', '#34', '#56']);
  });

  it('counts positions in UTF-16 units, after astral characters', () => {
    expect(findLinkifierMatches('😀 #7', [issue])).toEqual([
      { index: 3, text: '#7', url: 'https://example.com/7', precedence: 0 },
    ]);
  });

  it('honours inline flags', () => {
    const l: Linkifier = {
      id: 1,
      pattern: '(?i)T-(?P<id>[0-9]+)',
      urlTemplate: 'https://x.example/{id}',
    };
    expect(linkifyTopic('t-5', [l])).toEqual([{ text: 't-5', url: 'https://x.example/5' }]);
  });

  it('ignores a stored pattern RE2 cannot compile instead of failing the message', async () => {
    const broken: Linkifier = { id: 2, pattern: '(?P<a>x)(?P=a)', urlTemplate: 'https://x/{a}' };
    const r = await renderMarkdown('xx #1', context([broken, issue]));
    expect(r.html).toBe('<p>xx <a href="https://example.com/1">#1</a></p>');
  });
});

describe('linkifier validation (Zulip wording)', () => {
  const bad = (pattern: string) => () => validateLinkifier(pattern, 'https://x.example/');

  it('reports what RE2 rejects in RE2 words', () => {
    expect(bad('(foo')).toThrow(/^Bad regular expression: missing \): \(foo$/);
    expect(bad('ZUL-(?P<id>\\d????)')).toThrow(/^Bad regular expression: bad repetition operator/);
    // Backreferences and lookaround need backtracking: RE2 has neither.
    expect(bad('(?P<a>x)(?P=a)')).toThrow(/^Bad regular expression: invalid perl operator/);
    expect(bad('a(?=b)')).toThrow(/^Bad regular expression: invalid perl operator/);
    expect(bad('a{2000}')).toThrow(/^Bad regular expression: bad repetition operator/);
  });

  it('takes only http and https URL templates', () => {
    const ok = ['https://x.example/{id}', 'http://x.example/{id}', 'HTTPS://x.example/?{?id}'];
    for (const template of ok) expect(() => validateLinkifier('(?P<id>a)', template)).not.toThrow();
    for (const template of [
      'javascript:alert({id})',
      'data:text/html,{id}',
      '{id}://x.example/',
      '//x.example/{id}',
      '/relative/{id}',
      'ftp://x.example/{id}',
      'JavaScript:alert({id})',
      '{+id}',
    ]) {
      expect(() => validateLinkifier('(?P<id>a)', template)).toThrow('Invalid URL template.');
    }
  });
});

describe('alert words', () => {
  it('keeps Zulip semantics', () => {
    expect(findAlertWords('Hello World!', ['world'])).toBe(true);
    expect(findAlertWords('worldwide', ['world'])).toBe(false);
    expect(findAlertWords('(c++) rocks', ['c++'])).toBe(true);
    expect(findAlertWords('[a.*b]', ['a.*b'])).toBe(true);
    expect(findAlertWords('axxb', ['a.*b'])).toBe(false);
    expect(findAlertWords('ping me, Hamlet!', ['zzz', 'hamlet'])).toBe(true);
    expect(findAlertWords('hamlets', ['hamlet', ''])).toBe(false);
    expect(findAlertWords('anything', [])).toBe(false);
  });

  it('builds the matcher for the most words a user may keep quickly', () => {
    const words = Array.from({ length: 1000 }, (_, i) => `${'b'.repeat(95)}${100000 + i}`);
    const started = performance.now();
    expect(findAlertWords(`x ${at(words, 999).toUpperCase()}!`, words)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('checks many long words against a long hostile message in linear time', () => {
    const words = Array.from({ length: 200 }, (_, i) => `${'a'.repeat(99)}${i % 10}`);
    const text = 'a'.repeat(10000);
    const started = performance.now();
    expect(findAlertWords(text, words)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
