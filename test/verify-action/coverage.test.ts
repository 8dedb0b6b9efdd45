import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { allVariants } from '../../libs/protocol/variants';

/**
 * Every event variant a queue can deliver (libs/protocol/variants.ts, derived from the typed
 * catalogue) has a verify_action case: a test in this folder whose `expectCovered` list names
 * it, which fails unless its watchers received an event of that variant. Variants without a case
 * yet are listed below with the reason; the list only shrinks (a covered variant listed here
 * fails too), and docs/architecture.md states the count.
 */
const WITHOUT_CASE: Record<string, string> = {
  heartbeat:
    'sent by the events tier to an idle poll, no action emits it (Zulip checks it by schema only)',
  'realm:deactivated':
    "the deactivated organization refuses the fresh register that would compare (Zulip's " +
    'verify_action fetches its state in-process, which no client can)',
  'realm_user:update:is_billing_admin': 'never emitted: the server has no billing',
  'realm_bot:update:default_sending_stream':
    'never emitted: PATCH /bots does not take default channels here',
  'realm_bot:update:default_events_register_stream':
    'never emitted: PATCH /bots does not take default channels here',
  'realm_bot:update:default_all_public_streams':
    'never emitted: PATCH /bots does not take default_all_public_streams here',
};

const here = __dirname;

/** The variants the test files of this folder check, from their `expectCovered` lists. */
function coveredVariants(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of readdirSync(here).filter((f) => f.endsWith('.test.ts'))) {
    const source = readFileSync(path.join(here, file), 'utf8');
    for (const match of source.matchAll(/expectCovered\(\s*\w+,\s*\[([^\]]*)\]/g)) {
      for (const [, name] of match[1].matchAll(/'([^']+)'/g)) {
        out.set(name, [...(out.get(name) ?? []), file]);
      }
    }
  }
  return out;
}

describe('verify_action coverage of the event catalogue', () => {
  const variants = allVariants();
  const covered = coveredVariants();

  it('has a case for every variant, or says why not', () => {
    const missing = variants.filter((v) => !covered.has(v) && !(v in WITHOUT_CASE));
    expect(missing).toEqual([]);
  });

  it('names only real variants, and lists none as uncovered that has a case', () => {
    expect([...covered.keys()].filter((v) => !variants.includes(v))).toEqual([]);
    expect(Object.keys(WITHOUT_CASE).filter((v) => !variants.includes(v))).toEqual([]);
    expect(Object.keys(WITHOUT_CASE).filter((v) => covered.has(v))).toEqual([]);
  });

  it('matches the count docs/architecture.md states', () => {
    const doc = readFileSync(path.join(here, '../../docs/architecture.md'), 'utf8');
    const stated = /verify_action covers (\d+) of (\d+) event variants/.exec(doc);
    const count = variants.filter((v) => covered.has(v)).length;
    expect(stated?.slice(1, 3)).toEqual([String(count), String(variants.length)]);
  });
});
