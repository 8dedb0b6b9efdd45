import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../core/context';
import {
  archiveKind,
  DEFAULT_UNPACK_LIMITS,
  unpackTar,
  unpackZip,
  type UnpackLimits,
} from './archive';
import { ImportError } from './errors';
import { importZulipExport, type ImportSummary } from './import-zulip';
import { noProgress, type ProgressReporter } from './progress';

export const IMPORT_FORMATS = ['zulip'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportRealmInput {
  /** A directory, or an archive (.tar.gz, .tar, .zip) of one. */
  from: string;
  subdomain: string;
  format?: ImportFormat;
  onMissing?: 'skip' | 'stop';
  limits?: UnpackLimits;
  progress?: ProgressReporter;
}

/** The directory holding the input: the unpacked root, or its one subdirectory. */
async function rootOf(dir: string): Promise<string> {
  const names = await readdir(dir);
  if (names.length === 1 && (await stat(path.join(dir, names[0]))).isDirectory()) {
    return path.join(dir, names[0]);
  }
  return dir;
}

/** Which tool wrote the input, from the files at its root. */
export async function detectFormat(dir: string): Promise<ImportFormat> {
  const names = new Set(await readdir(dir));
  if (names.has('realm.json')) return 'zulip';
  throw new ImportError(
    path.basename(dir),
    'not a format this server imports (a Zulip export has realm.json at its root)',
  );
}

/**
 * `cli import`: unpacks the input if it is an archive (within size limits, refusing entries
 * that point outside it), finds its format, and imports it as a new organization.
 */
export async function importRealm(
  ctx: AppContext,
  input: ImportRealmInput,
): Promise<ImportSummary & { format: ImportFormat }> {
  const progress = input.progress ?? noProgress;
  const info = await stat(input.from).catch(() => null);
  if (!info) throw new ImportError(input.from, 'no such file or directory');
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'realm-import-'));
  try {
    let dir = input.from;
    if (!info.isDirectory()) {
      const kind = await archiveKind(input.from);
      const limits = input.limits ?? DEFAULT_UNPACK_LIMITS;
      const unpacked = path.join(scratch, 'input');
      progress({ stage: 'unpack', done: 0 });
      if (kind === 'zip') await unpackZip(input.from, unpacked, limits);
      else if (kind === 'tar.gz' || kind === 'tar') await unpackTar(input.from, unpacked, limits);
      else throw new ImportError(path.basename(input.from), 'not a directory, .zip or .tar.gz');
      progress({ stage: 'unpack', done: 1, total: 1 });
      dir = await rootOf(unpacked);
    } else {
      dir = await rootOf(dir);
    }
    const format = input.format ?? (await detectFormat(dir));
    const summary = await importZulipExport(ctx, {
      dir,
      subdomain: input.subdomain,
      onMissing: input.onMissing ?? 'stop',
      progress,
    });
    return { format, ...summary };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
