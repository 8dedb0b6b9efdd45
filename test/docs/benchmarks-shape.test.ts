import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * docs/benchmarks.md is a reference, not a record (issue 47): at most 250 lines, none wider than
 * 100 columns, tables and prose alike. The runs behind its figures live in commit messages.
 */
const MAX_LINES = 250;
const MAX_COLUMNS = 100;

const text = readFileSync(join(__dirname, '..', '..', 'docs', 'benchmarks.md'), 'utf8');
const lines = text.replace(/\n$/, '').split('\n');

it(`docs/benchmarks.md has at most ${MAX_LINES} lines`, () => {
  expect(lines.length).toBeLessThanOrEqual(MAX_LINES);
});

it(`no line of docs/benchmarks.md is wider than ${MAX_COLUMNS} columns`, () => {
  const wide = lines
    .map((line, i) => ({ line: i + 1, columns: [...line].length }))
    .filter(({ columns }) => columns > MAX_COLUMNS);
  expect(wide).toEqual([]);
});
