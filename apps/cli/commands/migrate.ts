import type { AppContext } from '../../../libs/core/context';
import { applyMigrations, ensureDatabase, migrationStatus } from '../../../libs/db/migrate';
import { CommandFailed, parseFlags, UsageError } from '../args';

/**
 * `migrate`: creates the database if it is missing (first setup), then applies pending
 * migrations. `--status` lists applied and pending migrations and changes nothing; `--check`
 * does the same and fails (exit 1) when anything is pending or wrong, for a deploy pipeline's
 * gate.
 */
export async function migrateCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, [], ['status', 'check']);
  if (flags.status && flags.check) throw new UsageError('--status and --check exclude each other');
  if (flags.status || flags.check) {
    const status = await migrationStatus(ctx.config.databaseUrl);
    if (flags.check) {
      const problems = [
        status.pending.length
          ? `${status.pending.length} pending: ${status.pending.join(', ')}`
          : '',
        status.failed.length ? `did not finish: ${status.failed.join(', ')}` : '',
        status.modified.length ? `changed after applying: ${status.modified.join(', ')}` : '',
      ].filter(Boolean);
      if (problems.length) throw new CommandFailed(`migrations ${problems.join('; ')}`);
    }
    return { ...status };
  }
  const database = await ensureDatabase(ctx.config.databaseUrl);
  const applied = await applyMigrations(ctx.config.databaseUrl);
  return { database, applied };
}
