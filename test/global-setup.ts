import { applyMigrations } from '../libs/db/migrate';
import {
  databasesLike,
  databaseUrl,
  dropDatabase,
  newRunId,
  runStartedAt,
  templateDb,
  TEST_DB_PREFIX,
  withAdminClient,
} from './databases';

const STALE_AFTER_SECONDS = 3 * 60 * 60;

/** Migrations are applied once to a template database; each test file copies it (fast). */
export default async function globalSetup(): Promise<void> {
  const run = newRunId();
  process.env.CHAT_TEST_RUN_ID = run;
  await withAdminClient(async (client) => {
    const now = Date.now() / 1000;
    for (const name of await databasesLike(client, TEST_DB_PREFIX)) {
      const started = runStartedAt(name);
      if (started !== null && now - started > STALE_AFTER_SECONDS) await dropDatabase(client, name);
    }
    await client.query(`CREATE DATABASE "${templateDb(run)}"`);
  });
  await applyMigrations(databaseUrl(templateDb(run)));
}
