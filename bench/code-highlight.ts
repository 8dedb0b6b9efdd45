/**
 * Code-block highlighting time (not a test): `npx tsx bench/code-highlight.ts`.
 *
 * One `api` process (port BENCH_PORT, default 10810) on a scratch database; a client renders
 * ```-fenced code blocks of BENCH_CHARS characters (default 9,000, near the 10,000-character
 * message limit) through `POST /api/v1/messages/render` with Basic auth, BENCH_ROUNDS times
 * each (default 20), one request at a time. The blocks are words Prism is slow on (one long
 * identifier, `$` runs, `=-` runs, minified calls) and ordinary code of the same size with short
 * words, so the long-word times can be read against what any code of that size costs. Prints
 * p50 / p99 / max per block and whether it came back highlighted.
 */
import http from 'node:http';
import { makeRealm, makeUser } from '../test/factories';
import { startTier } from '../test/multiprocess/processes';
import { percentile, withScratchWorld } from './scratch-world';

const CHARS = Number(process.env.BENCH_CHARS ?? 9000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const PORT = Number(process.env.BENCH_PORT ?? 10810);

const fill = (unit: string) => unit.repeat(Math.ceil(CHARS / unit.length)).slice(0, CHARS);

const BLOCKS: Record<string, [string, string]> = {
  'js, one identifier': ['js', `var ${fill('x')} = 1;`],
  'typescript, $ run': ['typescript', `let a = ${fill('$')};`],
  'coffeescript, one identifier': ['coffeescript', `a = ${fill('y')}`],
  'yaml, =- run': ['yaml', `k: ${fill('=-')}`],
  'yaml, =- with spaces': ['yaml', `k: ${fill('=- ')}`],
  'python, minified calls': ['python', `x = ${fill('a.b(c)+')}0`],
  'hcl, quoted identifier': ['hcl', `a = "${fill('q')}"`],
  'js, ordinary code': ['js', fill('function f(a, b) { return a.b(c) + "x"; } // y\n')],
  'css, ordinary code': ['css', fill('a { color: red; margin: 0 1px; }\n')],
};

function render(url: string, headers: Record<string, string>, content: string) {
  const body = new URLSearchParams({ content }).toString();
  return new Promise<{ ms: number; highlighted: boolean }>((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
          const rendered = JSON.parse(Buffer.concat(chunks).toString()).rendered as string;
          resolve({ ms, highlighted: rendered.includes('<span class="') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const report = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const user = await makeUser(ctx, org.realm, { fullName: 'Caller' });
    const api = await startTier('api', config, { RATE_LIMIT_API_REQUESTS: '100000000' }, PORT);
    try {
      const url = `${api.url}/api/v1/messages/render`;
      const headers = { Host: org.host, Authorization: user.auth };
      const out: Record<string, unknown> = {};
      for (const [name, [lang, code]] of Object.entries(BLOCKS)) {
        const content = `\`\`\`${lang}\n${code}\n\`\`\``;
        // The first render loads the grammar; it is not counted.
        const first = await render(url, headers, content);
        const times: number[] = [];
        for (let i = 0; i < ROUNDS; i++) times.push((await render(url, headers, content)).ms);
        times.sort((a, b) => a - b);
        out[name] = {
          highlighted: first.highlighted,
          p50: Math.round(percentile(times, 50)),
          p99: Math.round(percentile(times, 99)),
          max: Math.round(times[times.length - 1]),
        };
      }
      return out;
    } finally {
      await api.stop();
    }
  });
  process.stdout.write(`${JSON.stringify({ chars: CHARS, rounds: ROUNDS, ...report }, null, 1)}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
