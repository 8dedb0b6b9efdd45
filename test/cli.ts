import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Config } from '../libs/core/config';

const ROOT = path.resolve(__dirname, '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The `--json` answer: the last line of stdout, or {} when there is none. */
  json: Record<string, unknown>;
}

/** The environment that points the operator CLI at a test context's database and Redis. */
export const cliEnv = (config: Config): Record<string, string> => ({
  DATABASE_URL: config.databaseUrl,
  REDIS_URL: config.redisUrl,
  REDIS_PREFIX: config.redisPrefix,
  EXTERNAL_HOST: config.externalHost,
  BCRYPT_ROUNDS: '4',
});

/** Runs the operator CLI as an operator would (tsx, this checkout); resolves whatever it exits with. */
export function runCli(args: string[], env: Record<string, string>, input = ''): Promise<CliRun> {
  return new Promise<CliRun>((resolve) => {
    const child = execFile(
      path.join(ROOT, 'node_modules/.bin/tsx'),
      ['apps/cli/main.ts', ...args],
      { cwd: ROOT, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        const last = stdout.trim().split('\n').pop() ?? '';
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(last) as Record<string, unknown>;
        } catch {
          // Not a --json run, or a usage error before any answer.
        }
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr, json });
      },
    );
    child.stdin?.end(input);
  });
}

/** Runs a command with `--json` that must succeed; rejects with the run when it exits non-zero. */
export async function cliJson<T = Record<string, unknown>>(
  args: string[],
  env: Record<string, string>,
): Promise<T> {
  const run = await runCli([...args, '--json'], env);
  if (run.code !== 0) {
    throw Object.assign(new Error(`cli ${args[0]} exited with ${run.code}: ${run.stderr}`), run);
  }
  return run.json as T;
}
