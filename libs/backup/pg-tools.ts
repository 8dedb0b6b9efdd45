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

/** A backup or restore that would not be sound, refused before anything is written. */
export class BackupRefused extends Error {}

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
      throw new BackupRefused(
        `${tool} is not installed (Debian: apt-get install postgresql-client)`,
        { cause: err },
      );
    }
    throw new Error(`${tool} failed: ${(failure.stderr ?? failure.message).trim()}`, {
      cause: err,
    });
  }
}

/** The major version of an installed client tool (`pg_dump (PostgreSQL) 15.20` -> 15). */
export async function toolMajor(tool: 'pg_dump' | 'pg_restore'): Promise<number> {
  const { stdout } = await pgTool(tool, ['--version'], process.env);
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(stdout);
  if (!match) throw new Error(`cannot read ${tool}'s version from "${stdout.trim()}"`);
  return Number(match[1]);
}

/**
 * pg_dump reads servers of its own major version and older only (a newer server's catalog is
 * unknown to it, and it refuses); said before anything is written, with what to install.
 */
export async function checkDumpVersion(serverMajor: number): Promise<number> {
  const dumpMajor = await toolMajor('pg_dump');
  if (dumpMajor < serverMajor) {
    throw new BackupRefused(
      `pg_dump is version ${dumpMajor} and the server is PostgreSQL ${serverMajor}: install ` +
        `the client of the server's major version (Debian: postgresql-client-${serverMajor}) ` +
        `and run the backup again`,
    );
  }
  return dumpMajor;
}

/** pg_restore reads the archives of its own pg_dump version and older. */
export async function checkRestoreVersion(dumpMajor: number): Promise<void> {
  const restoreMajor = await toolMajor('pg_restore');
  if (restoreMajor < dumpMajor) {
    throw new BackupRefused(
      `the dump was written by pg_dump ${dumpMajor} and pg_restore is version ` +
        `${restoreMajor}: install postgresql-client-${dumpMajor} or later`,
    );
  }
}
