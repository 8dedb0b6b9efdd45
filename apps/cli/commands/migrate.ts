import { Client } from 'pg';
import type { AppContext } from '../../../libs/core/context';
import { applyMigrations } from '../../../libs/db/migrate';

/** Creates the database if it is missing (first setup), then applies pending migrations. */
export async function migrateCommand(ctx: AppContext) {
  const url = new URL(ctx.config.databaseUrl);
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
  const applied = await applyMigrations(ctx.config.databaseUrl);
  return { database: name, applied };
}
