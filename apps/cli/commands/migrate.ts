import type { AppContext } from '../../../libs/core/context';
import { applyMigrations, ensureDatabase } from '../../../libs/db/migrate';

/** Creates the database if it is missing (first setup), then applies pending migrations. */
export async function migrateCommand(ctx: AppContext) {
  const database = await ensureDatabase(ctx.config.databaseUrl);
  const applied = await applyMigrations(ctx.config.databaseUrl);
  return { database, applied };
}
