import path from 'node:path';
import type { AppContext } from '../../../libs/core/context';
import { backupInto, writeBackup } from '../../../libs/backup/backup';
import { BackupRefused } from '../../../libs/backup/pg-tools';
import { restoreBackup, RestoreRefused } from '../../../libs/backup/restore';
import { CommandFailed, optionalFlag, parseFlags, requireFlag, UsageError } from '../args';

function keepFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value))
    throw new UsageError('--keep takes a whole number of backups, 1 or more');
  return Number(value);
}

/**
 * `backup --to DIR`: the database dump, the stored uploads and a manifest, in a new directory.
 * `backup --into ROOT [--keep N]`: in `ROOT/<UTC time>`, reusing unchanged uploads of the newest
 * backup there, then keeping the newest N.
 */
export async function backupCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['to', 'into', 'keep']);
  const to = optionalFlag(flags, 'to');
  const into = optionalFlag(flags, 'into');
  if ((to === undefined) === (into === undefined)) {
    throw new UsageError('give either --to DIR or --into ROOT');
  }
  const keep = keepFlag(optionalFlag(flags, 'keep'));
  if (keep !== undefined && into === undefined) throw new UsageError('--keep goes with --into');
  try {
    if (to !== undefined) {
      const dir = path.resolve(to);
      const manifest = await writeBackup(ctx, dir);
      return { dir, ...summary(manifest) };
    }
    const rotated = await backupInto(ctx, path.resolve(into!), { keep });
    return {
      dir: rotated.dir,
      previous: rotated.previous,
      removed: rotated.removed,
      ...summary(rotated.manifest),
    };
  } catch (err) {
    if (err instanceof BackupRefused) throw new CommandFailed(err.message);
    throw err;
  }
}

/** The manifest without its per-file list, which can be long. */
function summary(manifest: Awaited<ReturnType<typeof writeBackup>>) {
  const { files: _files, ...uploads } = manifest.uploads;
  return { ...manifest, uploads };
}

/** `restore --from DIR`: into an empty database (created if missing) and the upload store. */
export async function restoreCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['from']);
  const dir = path.resolve(requireFlag(flags, 'from'));
  try {
    return { dir, ...(await restoreBackup(ctx, dir)) };
  } catch (err) {
    if (err instanceof RestoreRefused) throw new UsageError(err.message);
    if (err instanceof BackupRefused) throw new CommandFailed(err.message);
    throw err;
  }
}
