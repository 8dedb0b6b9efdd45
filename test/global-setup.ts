import { applyMigrations } from '../libs/db/migrate';
import {
  databaseUrl,
  dropDatabase,
  TEMPLATE_DB,
  TEST_DB_PREFIX,
  withAdminClient,
} from './databases';

/** Migrations are applied once to a template database; each test file copies it (fast). */
export default async function globalSetup(): Promise<void> {
  await withAdminClient(async (client) => {
    const stale = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1`,
      [`${TEST_DB_PREFIX}%`],
    );
    for (const row of stale.rows) await dropDatabase(client, row.datname);
    await client.query(`CREATE DATABASE "${TEMPLATE_DB}"`);
  });
  await applyMigrations(databaseUrl(TEMPLATE_DB));
}
