/**
 * API overhead (not a test): `npm run build && BENCH_DIST_DIR=$PWD/dist npx tsx bench/api-overhead.ts`.
 *
 * Issue 29's method: autocannon, BENCH_CONNECTIONS keep-alive connections (default 20) for
 * BENCH_SECONDS (default 10) per phase, BENCH_ROUNDS rounds (default 2). Each path, `GET
 * /server_settings` (no credentials) and `GET /users/me` (Basic auth), is driven against one `api`
 * process and, in the same round, against a bare Express app answering the same path with a fixed
 * JSON body (the api's own answer, captured once: the same bytes on the wire). The bare app
 * (`bench/bare-express.ts`) runs in its own process, as the api does, so neither shares the load
 * generator's event loop. The ratio is api / bare requests per second within one round.
 *
 * BENCH_BASE_DIST_DIR (e.g. /work/wt/base/dist): also start that build's `api` against the same
 * database and drive it in every round right after this one's, for a paired before/after.
 * BENCH_PATHS: the paths to drive (default serverSettings,usersMe; also healthz).
 * BENCH_NODE_ARGS=--cpu-prof profiles the api processes (see bench/profile-summary.ts).
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { makeRealm, makeUser } from '../test/factories';
import { startTier, type Tier } from '../test/multiprocess/processes';
import type { Config } from '../libs/core/config';
import { withScratchWorld } from './scratch-world';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const BASE_DIST_DIR = process.env.BENCH_BASE_DIST_DIR;
const ONLY = (process.env.BENCH_PATHS ?? 'serverSettings,usersMe').split(',');

interface Phase {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
  /** The server process's own CPU time per answer: unlike throughput, barely moved by whatever else the box runs. */
  cpuMsPerRequest: number;
}

/** CPU time (user + system) process `pid` has used so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function drive(
  target: { url: string; pid: number },
  route: string,
  headers: Record<string, string>,
  seconds = SECONDS,
): Promise<Phase> {
  const cpuBefore = cpuMs(target.pid);
  const result = await autocannon({
    url: `${target.url}${route}`,
    connections: CONNECTIONS,
    duration: seconds,
    headers,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    cpuMsPerRequest:
      Math.round(((cpuMs(target.pid) - cpuBefore) / Math.max(1, result.requests.total)) * 1000) /
      1000,
  };
}

/** Starts the `api` of the build in `distDir` (this worktree's TypeScript when undefined). */
async function startApi(config: Config, distDir: string | undefined): Promise<Tier> {
  const own = process.env.BENCH_DIST_DIR;
  if (distDir === undefined) delete process.env.BENCH_DIST_DIR;
  else process.env.BENCH_DIST_DIR = distDir;
  try {
    return await startTier('api', config, { RATE_LIMIT_API_REQUESTS: '100000000' });
  } finally {
    if (own === undefined) delete process.env.BENCH_DIST_DIR;
    else process.env.BENCH_DIST_DIR = own;
  }
}

/** Starts `bench/bare-express.ts` answering each path with its body; resolves to its URL. */
async function startBare(bodies: Record<string, string>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bare-express-'));
  const args = Object.entries(bodies).map(([route, body], i) => {
    const file = path.join(dir, `${i}.json`);
    writeFileSync(file, body);
    return `${route}=${file}`;
  });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'bare-express.ts'), ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`bare express exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const load = () => loadavg().map((x) => Math.round(x * 100) / 100);

async function main() {
  const started = { at: new Date().toISOString(), loadAverage: load() };
  const report = await withScratchWorld({}, async (ctx, config) => {
    const org = await makeRealm(ctx);
    const user = await makeUser(ctx, org.realm, { fullName: 'Caller' });
    const allPaths = {
      // Not driven by default: the liveness probe, the first route after the request log, shows
      // what the app costs before any route's own work.
      healthz: { route: '/healthz', headers: {} },
      serverSettings: { route: '/api/v1/server_settings', headers: { Host: org.host } },
      usersMe: {
        route: '/api/v1/users/me',
        headers: { Host: org.host, Authorization: user.auth },
      },
    };
    const paths = Object.fromEntries(
      Object.entries(allPaths).filter(([name]) => ONLY.includes(name)),
    );
    const apis: Record<string, Tier> = { api: await startApi(config, process.env.BENCH_DIST_DIR) };
    if (BASE_DIST_DIR) apis.base = await startApi(config, BASE_DIST_DIR);
    const bodies: Record<string, string> = {};
    for (const { route, headers } of Object.values(paths)) {
      const res = await fetch(`${apis.api.url}${route}`, { headers });
      if (res.status !== 200) throw new Error(`${route}: ${res.status} ${await res.text()}`);
      bodies[route] = await res.text();
    }
    const bare = await startBare(bodies);
    try {
      const targets = {
        bare,
        ...Object.fromEntries(
          Object.entries(apis).map(([name, tier]) => [
            name,
            { url: tier.url, pid: tier.child.pid! },
          ]),
        ),
      };
      for (const { route, headers } of Object.values(paths)) {
        for (const target of Object.values(targets)) await drive(target, route, headers, 2);
      }
      const rounds = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const byPath: Record<string, Record<string, Phase | number>> = {};
        for (const [name, { route, headers }] of Object.entries(paths)) {
          const phases: Record<string, Phase | number> = {};
          for (const [name, target] of Object.entries(targets)) {
            phases[name] = await drive(target, route, headers);
          }
          const bareRate = (phases.bare as Phase).requestsPerSecond;
          for (const target of Object.keys(apis)) {
            phases[`${target}Ratio`] =
              Math.round(((phases[target] as Phase).requestsPerSecond / bareRate) * 100) / 100;
          }
          byPath[name] = phases;
        }
        rounds.push({ round, loadAverage: load(), ...byPath });
      }
      return rounds;
    } finally {
      await bare.stop();
      await Promise.all(Object.values(apis).map((tier) => tier.stop()));
    }
  });
  process.stdout.write(
    `${JSON.stringify(
      {
        connections: CONNECTIONS,
        seconds: SECONDS,
        api: process.env.BENCH_DIST_DIR ?? 'tsx',
        base: BASE_DIST_DIR ?? null,
        started,
        rounds: report,
        finished: { at: new Date().toISOString(), loadAverage: load() },
      },
      null,
      2,
    )}\n`,
  );
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
