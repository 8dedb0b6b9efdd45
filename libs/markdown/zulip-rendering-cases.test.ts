import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderMarkdown, type MarkdownContext } from './index';

interface RenderingCase {
  name: string;
  input: string;
  expected_output: string;
}

/**
 * Cases from Zulip's documented Markdown and its markdown_test_cases.json that the shared
 * reference fixture leaves out: code highlighting, inline image and video previews, timestamps
 * with zones, trailing spaces, quotes opening with empty `>` lines, and mixed bullets.
 */
const { regular_tests: cases } = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'zulip-rendering-cases.json'), 'utf8'),
) as { regular_tests: RenderingCase[] };

const ctx: MarkdownContext = {
  realmUrl: 'http://zulip.testserver',
  lookupUsersByName: async () => [],
  lookupUsersById: async () => [],
  lookupGroupsByName: async () => [],
  lookupStreamsByName: async () => [],
  realmEmoji: [],
  linkifiers: [],
};

describe('Zulip rendering cases', () => {
  it('has uniquely named cases', () => {
    const names = cases.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    expect((await renderMarkdown(c.input, ctx)).html).toBe(c.expected_output);
  });
});
