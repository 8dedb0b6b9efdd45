import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../libs/core/config';
import { redisEnv } from '../harness';
import { freePort } from '../free-port';
import { EVENTS_NODE_FLAGS } from '../../apps/events/node-flags';

const ROOT = path.resolve(__dirname, '../..');

/** `worker`: readiness on its ops listener (METRICS_PORT = the tier's port), at /healthz. */
export type TierKind = 'api' | 'events' | 'all' | 'worker';

export interface Tier {
  kind: TierKind;
  port: number;
  url: string;
  child: ChildProcess;
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `apps/<kind>/main.ts` as its own process against the test's database and Redis prefix
 * (`all`: every tier in one process), listening on `port` or a free one.
 */
export async function startTier(
  kind: TierKind,
  config: Config,
  /** Variables to set, or with `undefined` to leave out (e.g. for a program's own default). */
  extraEnv: Record<string, string | undefined> = {},
  port?: number,
  /** Run the compiled build (`npm run build` first), as `npm start` does, whatever BENCH_DIST_DIR says. */
  options: { built?: boolean; startSeconds?: number } = {},
): Promise<Tier> {
  port ??= await freePort();
  const distDir = options.built ? path.join(ROOT, 'dist') : process.env.BENCH_DIST_DIR;
  // `node --import tsx` keeps the server in this one process, so SIGKILL really kills it.
  // BENCH_SERVER_CPUS (e.g. "0"): the tier runs on those CPUs only (taskset execs node, so the pid
  // stays the server's), to keep a benchmark's load generator, pinned elsewhere, off its cores.
  const pinned = process.env.BENCH_SERVER_CPUS;
  const child = spawn(
    pinned ? 'taskset' : process.execPath,
    [
      ...(pinned ? ['-c', pinned, process.execPath] : []),
      // BENCH_DIST_DIR: run a compiled build as production starts it, instead of the TypeScript.
      ...(distDir && kind === 'events' ? EVENTS_NODE_FLAGS : []),
      // Extra node flags for the child, e.g. BENCH_NODE_ARGS=--cpu-prof to profile a benchmark
      // (after the production flags, so that they can override them).
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      ...(distDir
        ? [path.join(distDir, `apps/${kind}/main.js`)]
        : ['--import', 'tsx', path.join(ROOT, `apps/${kind}/main.ts`)]),
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: config.databaseUrl,
        ...redisEnv(config),
        REDIS_PREFIX: config.redisPrefix,
        EXTERNAL_HOST: config.externalHost,
        BIND_HOST: '127.0.0.1',
        API_PORT: String(port),
        EVENTS_PORT: String(port),
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        BCRYPT_ROUNDS: '4',
        RATE_LIMIT_API_REQUESTS: '100000',
        // One process per tier unless a test asks for `npm start`'s cluster.
        WEB_CONCURRENCY: '1',
        // As in the test process (test/harness.ts); a benchmark passes its own.
        OVERLOAD_EVENT_LOOP_LAG_MS: '60000',
        OVERLOAD_ANSWER_TARGET_MS: '60000',
        ...(kind === 'worker' ? { METRICS_PORT: String(port) } : {}),
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  // BENCH_OUTPUT_DIR: the child's output also goes to <dir>/<kind>-<pid>.log, for what V8 prints
  // with flags such as --trace-opt (BENCH_NODE_ARGS).
  if (process.env.BENCH_OUTPUT_DIR) {
    const file = createWriteStream(
      path.join(process.env.BENCH_OUTPUT_DIR, `${kind}-${child.pid}.log`),
    );
    child.stdout?.pipe(file, { end: false });
    child.stderr?.pipe(file, { end: false });
  }
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startSeconds ?? 30) * 1000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${kind} exited early (${child.exitCode}):\n${output.join('')}`);
    }
    try {
      const res = await fetch(`${url}/${kind === 'worker' ? 'healthz' : 'health'}`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${kind} did not start:\n${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    kind,
    port,
    url,
    child,
    output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}
