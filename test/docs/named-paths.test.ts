import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const TOP_LEVEL = ['apps', 'libs', 'test', 'bench', 'deploy', 'scripts', 'docs', 'prisma'];
const PATH = new RegExp(`(?:^|[\\s(\`"'])((?:${TOP_LEVEL.join('|')})/[\\w./*<>-]*[\\w*/])`, 'gm');

/** The repository paths a document names; placeholders such as `libs/domain/<entity>/` are not. */
function namedPaths(doc: string): string[] {
  const text = readFileSync(join(root, doc), 'utf8');
  const found = new Set<string>();
  for (const match of text.matchAll(PATH)) {
    const path = match[1];
    if (path !== undefined && !path.includes('<')) found.add(path.replace(/\/$/, ''));
  }
  return [...found].sort();
}

/** True when a path, which may hold `*` in its segments, names at least one file or folder. */
function exists(path: string, dir = root): boolean {
  const [segment, ...rest] = path.split('/');
  if (segment === undefined) return true;
  if (!segment.includes('*')) {
    const next = join(dir, segment);
    return rest.length === 0 ? existsSync(next) : exists(rest.join('/'), next);
  }
  if (!existsSync(dir)) return false;
  const pattern = new RegExp(
    `^${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`,
  );
  return readdirSync(dir)
    .filter((name) => pattern.test(name))
    .some((name) => rest.length === 0 || exists(rest.join('/'), join(dir, name)));
}

describe.each(['docs/architecture.md', 'docs/reliability.md', 'README.md'])('%s', (doc) => {
  it('names only paths that exist', () => {
    const paths = namedPaths(doc);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => !exists(path))).toEqual([]);
  });
});
