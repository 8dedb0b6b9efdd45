import { linkifyTopic } from './linkifiers';
import { renderMarkdown } from './render';
import type { MarkdownContext } from './types';

/** A message with what most messages hold: text, emphasis, a bare link, an emoji, a mention. */
const SAMPLE = 'Hello **there**, see example.com/a_(b) :smile: @**Nobody** `code`\n\n> quoted';

const NO_ORGANIZATION: MarkdownContext = {
  realmUrl: 'http://localhost',
  lookupUsersByName: () => Promise.resolve([]),
  lookupUsersById: () => Promise.resolve([]),
  lookupGroupsByName: () => Promise.resolve([]),
  lookupStreamsByName: () => Promise.resolve([]),
  realmEmoji: [],
  linkifiers: [],
};

/**
 * Renders a sample message and links a sample topic twice, before the process serves: the first
 * use builds the parser and compiles the bare-URL regexes (thousands of TLDs), and V8 compiles a
 * regex to machine code on its second run. That took about 110 ms per process (47 + 15 ms for the
 * first two renders, 30 + 15 ms for the first two topics), which the first messages after a start
 * otherwise waited for, under whatever load the clients reconnecting brought.
 */
export async function warmMarkdown(): Promise<void> {
  for (let run = 0; run < 2; run++) {
    await renderMarkdown(SAMPLE, NO_ORGANIZATION);
    linkifyTopic('release notes: example.com/notes', []);
  }
}
