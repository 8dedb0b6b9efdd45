import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Parameters Prisma and our pool read from DATABASE_URL that libpq (pg_dump) would refuse. */
const NOT_LIBPQ = [
  'schema',
  'connection_limit',
  'pool_timeout',
  'pgbouncer',
  'statement_cache_size',
  'socket_timeout',
];

/**
 * A libpq connection for pg_dump and pg_restore: the URL without its password (which goes in
 * PGPASSWORD, out of the process list) and without parameters only our clients understand.
 */
export function libpqConnection(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  for (const name of NOT_LIBPQ) url.searchParams.delete(name);
  return {
    url: url.toString(),
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
  };
}

/** Runs a PostgreSQL client tool; a failure carries its standard error. */
export async function pgTool(
  tool: 'pg_dump' | 'pg_restore',
  args: string[],
  env: NodeJS.ProcessEnv,
) {
  try {
    return await run(tool, args, { env, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const failure = err as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new Error(`${tool} is not installed (Debian: apt-get install postgresql-client)`, {
        cause: err,
      });
    }
    throw new Error(`${tool} failed: ${(failure.stderr ?? failure.message).trim()}`, {
      cause: err,
    });
  }
}
