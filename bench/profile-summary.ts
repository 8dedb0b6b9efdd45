/**
 * Summary of a V8 CPU profile (not a test):
 * `npx tsx bench/profile-summary.ts FILE.cpuprofile [--last SECONDS] [--top N]`.
 *
 * Prints the functions with the most self and inclusive time, and self time by package (or by our
 * own file), as shares of the samples. `--last` keeps only the profile's final seconds, e.g. the
 * `GET /users/me` phase of `bench/api-overhead.ts`, which runs last. `--from US --seconds N` keeps
 * N seconds from a time on the machine's monotonic clock in microseconds, which V8's profile
 * times use too (`measuredFromMonotonicUs` of bench/realtime-load.ts: its measured phase).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

/** `express/lib/router.js` for a dependency, the path from the repository root for ours. */
function shortUrl(url: string): string {
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('node_modules/');
  if (modules >= 0) return file.slice(modules + 'node_modules/'.length);
  return path.relative(process.cwd(), file) || file;
}

function packageOf(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node';
  const short = shortUrl(url);
  if (!url.includes('node_modules/')) return short;
  const parts = short.split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

function main() {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary FILE.cpuprofile [--last SECONDS] [--top N]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const top = option('--top', 25);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Sample times on the monotonic clock, to keep a window only.
  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const at = option('--from', -Infinity);
  const from = Math.max(at, t - option('--last', Infinity) * 1e6);
  const to = Number.isFinite(at) ? at + option('--seconds', Infinity) * 1e6 : Infinity;

  const label = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packages = new Map<string, number>();
  const charged = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (times[i] < from || times[i] >= to) return;
    total++;
    const node = byId.get(id)!;
    const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
    add(self, label(node));
    add(packages, packageOf(node.callFrame.url));
    // Native and Node frames charged to the nearest caller that is a package or our file, so
    // that e.g. a socket write counts for the client library that wrote.
    let payer: number | undefined = id;
    while (payer !== undefined && /^(\(|node$)/.test(packageOf(byId.get(payer)!.callFrame.url)))
      payer = parent.get(payer);
    add(
      charged,
      payer === undefined
        ? packageOf(node.callFrame.url)
        : packageOf(byId.get(payer)!.callFrame.url),
    );
    // Each function once per sample, however deep its recursion.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = label(byId.get(at)!);
      if (!seen.has(key)) add(inclusive, key);
      seen.add(key);
    }
  });
  const print = (title: string, m: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(`${((100 * v) / total).toFixed(1).padStart(6)} %  ${k}\n`);
    }
  };
  process.stdout.write(`${total} samples\n`);
  print('self', self);
  print('inclusive', inclusive);
  print('self by package or file', packages);
  print('self by package or file, native and Node frames charged to their caller', charged);
}

main();
