import { Client } from 'pg';

/** Tests reach the machine's own PostgreSQL; TEST_PG_URL points elsewhere when needed. */
export const PG_BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const TEST_DB_PREFIX = 'chat_test_';

/**
 * Each jest run has its own id (set by globalSetup, inherited by the workers) so that several
 * runs on one machine never drop each other's databases. It starts with the run's start time in
 * seconds (base 36), which lets a later run clean up databases a killed run left behind.
 */
export function newRunId(): string {
  return `${Math.floor(Date.now() / 1000).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export function runId(): string {
  const id = process.env.CHAT_TEST_RUN_ID;
  if (!id)
    throw new Error('CHAT_TEST_RUN_ID is unset: run tests through jest (globalSetup sets it)');
  return id;
}

export const templateDb = (run: string) => `${TEST_DB_PREFIX}${run}_template`;

/** Seconds since the epoch at which the run that made this database started, if it is ours. */
export function runStartedAt(databaseName: string): number | null {
  const match = new RegExp(`^${TEST_DB_PREFIX}([0-9a-z]{6,7})[0-9a-z]{4}_`).exec(databaseName);
  return match ? parseInt(match[1], 36) : null;
}

export const databaseUrl = (name: string) => `${PG_BASE_URL}/${name}`;

export async function withAdminClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(client: Client, name: string): Promise<void> {
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

export async function databasesLike(client: Client, prefix: string): Promise<string[]> {
  const rows = await client.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1`,
    [`${prefix}%`],
  );
  return rows.rows.map((r) => r.datname);
}
