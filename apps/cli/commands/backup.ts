import path from 'node:path';
import type { AppContext } from '../../../libs/core/context';
import { writeBackup } from '../../../libs/backup/backup';
import { restoreBackup, RestoreRefused } from '../../../libs/backup/restore';
import { parseFlags, requireFlag, UsageError } from '../args';

/** `backup --to DIR`: the database dump, the stored uploads and a manifest, in a new directory. */
export async function backupCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['to']);
  const dir = path.resolve(requireFlag(flags, 'to'));
  const manifest = await writeBackup(ctx, dir);
  return { dir, ...manifest };
}

/** `restore --from DIR`: into an empty database (created if missing) and the upload store. */
export async function restoreCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['from']);
  const dir = path.resolve(requireFlag(flags, 'from'));
  try {
    return { dir, ...(await restoreBackup(ctx, dir)) };
  } catch (err) {
    if (err instanceof RestoreRefused) throw new UsageError(err.message);
    throw err;
  }
}
