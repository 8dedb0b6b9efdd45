/**
 * Migration runner. Applies the SQL files in prisma/migrations (Prisma's
 * layout: `<timestamp>_<name>/migration.sql`) and records them in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does, so operators
 * can use either tool. Uses `pg` directly: Prisma's schema engine is not
 * available on every machine.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { at } from '../core/at';

/** Arbitrary constant identifying this runner's advisory lock (same across replicas). */
const ADVISORY_LOCK_KEY = 72707369; // Prisma uses 72707369 for `migrate` too.

export function migrationsDir(): string {
  return path.resolve(__dirname, '../../prisma/migrations');
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/** Migrations on disk, in name (timestamp) order. */
export function listMigrations(dir: string = migrationsDir()): MigrationFile[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'migration.sql')))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const buf = fs.readFileSync(path.join(dir, name, 'migration.sql'));
      return {
        name,
        sql: buf.toString('utf8'),
        checksum: crypto.createHash('sha256').update(buf).digest('hex'),
      };
    });
}

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/**
 * Applies every migration not yet applied, each in its own transaction, under
 * a PostgreSQL advisory lock so concurrent replicas do not race. Returns the
 * names of the migrations applied by this call. Throws if an applied
 * migration's file changed (checksum mismatch) or a previous attempt failed
 * and was not rolled back.
 */
export async function applyMigrations(
  databaseUrl: string,
  log: (msg: string) => void = () => {},
  dir: string = migrationsDir(),
): Promise<string[]> {
  const migrations = listMigrations(dir);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY]);
    try {
      await client.query(CREATE_MIGRATIONS_TABLE);
      const { rows } = await client.query<AppliedRow>(
        'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
      );
      const done = new Map<string, AppliedRow>();
      for (const row of rows) {
        if (row.rolled_back_at) continue;
        if (!row.finished_at) {
          throw new Error(
            `Migration ${row.migration_name} started but did not finish. Fix the database, then mark it rolled back ` +
              `(UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '${row.migration_name}') ` +
              `or resolve it with \`prisma migrate resolve\`.`,
          );
        }
        done.set(row.migration_name, row);
      }
      const onDisk = new Set(migrations.map((m) => m.name));
      for (const name of done.keys()) {
        if (!onDisk.has(name)) log(`warning: applied migration ${name} is missing from ${dir}`);
      }
      for (const m of migrations) {
        const prior = done.get(m.name);
        if (prior) {
          if (prior.checksum !== m.checksum) {
            throw new Error(
              `Migration ${m.name} was modified after it was applied (checksum ${prior.checksum} in the database, ` +
                `${m.checksum} on disk). Never edit an applied migration; add a new one instead.`,
            );
          }
          continue;
        }
        const id = crypto.randomUUID();
        log(`applying migration ${m.name}`);
        await client.query('BEGIN');
        try {
          await client.query(
            'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
            [id, m.checksum, m.name],
          );
          await client.query(m.sql);
          await client.query(
            'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
            [id],
          );
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.name);
      }
      if (applied.length === 0) log('database schema is up to date');
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
  return applied;
}

export interface MigrationStatus {
  /** False when the database does not exist yet (every migration is then pending). */
  databaseExists: boolean;
  applied: { name: string; finishedAt: string }[];
  pending: string[];
  /** Started and never finished, nor marked rolled back: `migrate` refuses until resolved. */
  failed: string[];
  /** Applied, but the file on disk differs: `migrate` refuses. */
  modified: string[];
  /** Applied, but not on disk: the database is from a newer release. */
  unknown: string[];
}

/**
 * What `migrate` would do, read without changing anything: no database or table is created and
 * no lock is taken.
 */
export async function migrationStatus(
  databaseUrl: string,
  dir: string = migrationsDir(),
): Promise<MigrationStatus> {
  const migrations = listMigrations(dir);
  const status: MigrationStatus = {
    databaseExists: true,
    applied: [],
    pending: [],
    failed: [],
    modified: [],
    unknown: [],
  };
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (err) {
    // 3D000: the database does not exist, which `migrate` creates.
    if ((err as { code?: string }).code !== '3D000') throw err;
    await client.end().catch(() => undefined);
    return { ...status, databaseExists: false, pending: migrations.map((m) => m.name) };
  }
  try {
    const table = await client.query<{ t: string | null }>(
      `SELECT to_regclass('"_prisma_migrations"')::text AS t`,
    );
    const rows = at(table.rows, 0).t
      ? (
          await client.query<AppliedRow>(
            'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
          )
        ).rows
      : [];
    const onDisk = new Map(migrations.map((m) => [m.name, m]));
    const done = new Set<string>();
    for (const row of rows) {
      if (row.rolled_back_at) continue;
      if (!row.finished_at) {
        status.failed.push(row.migration_name);
        continue;
      }
      done.add(row.migration_name);
      status.applied.push({
        name: row.migration_name,
        finishedAt: row.finished_at.toISOString(),
      });
      const file = onDisk.get(row.migration_name);
      if (!file) status.unknown.push(row.migration_name);
      else if (file.checksum !== row.checksum) status.modified.push(row.migration_name);
    }
    status.pending = migrations
      .filter((m) => !done.has(m.name) && !status.failed.includes(m.name))
      .map((m) => m.name);
    return status;
  } finally {
    await client.end();
  }
}

/** Creates the database `databaseUrl` names if it is missing; its name. */
export async function ensureDatabase(databaseUrl: string): Promise<string> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
  return name;
}
