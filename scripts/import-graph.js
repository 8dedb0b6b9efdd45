// Prints the import graph between libraries (libs/<name>) and apps (apps/<name>): one line per
// edge with its count of importing files, then every pair that imports each other both ways.
// Usage: node scripts/import-graph.js [--tests]   (test files count only with --tests; exits 1 if a
// two-way edge exists). The lint rule in eslint.config.mjs keeps the order; this shows it.
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const withTests = process.argv.includes('--tests');

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.tsx?$/.test(entry.name) && (withTests || !/\.test\.tsx?$/.test(entry.name))) {
      yield full;
    }
  }
}

/** `libs/domain/x/y.ts` -> `libs/domain`; anything outside libs/ and apps/ -> undefined. */
const libraryOf = (file) => {
  const [top, name] = path.relative(root, file).split(path.sep);
  return (top === 'libs' || top === 'apps') && name ? `${top}/${name}` : undefined;
};

const edges = new Map(); // "from -> to" -> Set of importing files
for (const top of ['libs', 'apps']) {
  for (const file of sourceFiles(path.join(root, top))) {
    const from = libraryOf(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = libraryOf(path.resolve(path.dirname(file), fileName));
      if (!to || to === from) continue;
      const key = `${from} -> ${to}`;
      if (!edges.has(key)) edges.set(key, new Set());
      edges.get(key).add(path.relative(root, file));
    }
  }
}

const lines = [...edges].map(([key, files]) => `${key} (${files.size})`).sort();
process.stdout.write(lines.join('\n') + '\n');

const twoWay = [...edges.keys()]
  .map((key) => key.split(' -> '))
  .filter(([a, b]) => a < b && edges.has(`${b} -> ${a}`))
  .map(([a, b]) => {
    const back = [...edges.get(`${b} -> ${a}`)].join(', ');
    return `${a} <-> ${b} (${edges.get(`${a} -> ${b}`).size}/${edges.get(`${b} -> ${a}`).size}): ${b} -> ${a} in ${back}`;
  });
process.stdout.write(`\ntwo-way edges: ${twoWay.length}\n${twoWay.join('\n')}\n`);
process.exitCode = twoWay.length ? 1 : 0;
