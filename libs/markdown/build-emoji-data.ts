/**
 * Regenerates `emoji-data.json` from Zulip's emoji name table.
 *
 * Usage: npx tsx libs/markdown/build-emoji-data.ts [path/to/zulip-emoji-names.json]
 * (defaults to ../shared/reference/zulip-emoji-names.json beside the repository).
 *
 * Then run `npx prettier --write libs/markdown/emoji-data.json`.
 *
 * Output shape: { "<codepoints>": ["canonical_name", ...aliases] }, sorted by code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

interface SourceEntry {
  canonical_name: string;
  aliases: string[];
}

function main(): void {
  const source = resolve(
    process.argv[2] ??
      join(__dirname, '..', '..', '..', 'shared', 'reference', 'zulip-emoji-names.json'),
  );
  const raw = JSON.parse(readFileSync(source, 'utf8')) as Record<string, SourceEntry>;
  const out: Record<string, string[]> = {};
  const byCode = Object.entries(raw).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [code, entry] of byCode) {
    out[code] = [entry.canonical_name, ...entry.aliases];
  }
  // One entry per line, the layout prettier gives this file.
  const lines = Object.entries(out).map(
    ([code, names]) =>
      `  ${JSON.stringify(code)}: [${names.map((n) => JSON.stringify(n)).join(', ')}]`,
  );
  writeFileSync(join(__dirname, 'emoji-data.json'), `{\n${lines.join(',\n')}\n}\n`);
  process.stdout.write(`wrote ${Object.keys(out).length} emoji\n`);
}

main();
