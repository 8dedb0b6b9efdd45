import { databasesLike, dropDatabase, runId, TEST_DB_PREFIX, withAdminClient } from './databases';

/** Drops this run's template and any database a test file left behind. */
export default async function globalTeardown(): Promise<void> {
  const run = runId();
  await withAdminClient(async (client) => {
    for (const name of await databasesLike(client, `${TEST_DB_PREFIX}${run}_`)) {
      await dropDatabase(client, name);
    }
  });
}
