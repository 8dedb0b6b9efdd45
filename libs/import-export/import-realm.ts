import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
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
import { sqlPool } from '../db/sql';
import { checkSubdomain } from '../domain/realms/create-realm';
import { MattermostConverter, mattermostFile } from './convert/mattermost';
import { ConvertReport } from './convert/report';
import { SlackConverter } from './convert/slack';
import { ImportError } from './errors';
import { importZulipExport, type ImportSummary } from './import-zulip';
import { noProgress, type ProgressReporter } from './progress';

export const IMPORT_FORMATS = ['zulip', 'slack', 'mattermost'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportRealmInput {
  /** A directory, or an archive (.tar.gz, .tar, .zip) of one. */
  from: string;
  subdomain: string;
  format?: ImportFormat;
  onMissing?: 'skip' | 'stop';
  /** Mattermost: the team to import, when the export holds several. */
  team?: string;
  /** Slack: a token sent when fetching files the export does not hold. */
  slackToken?: string;
  limits?: UnpackLimits;
  progress?: ProgressReporter;
}

/** The directory holding the input: the unpacked root, or its one subdirectory. */
async function rootOf(dir: string): Promise<string> {
  const [only, ...others] = await readdir(dir);
  if (only !== undefined && others.length === 0) {
    const sub = path.join(dir, only);
    if ((await stat(sub)).isDirectory()) return sub;
  }
  return dir;
}

/** Which tool wrote the input, from the files at its root. */
export async function detectFormat(dir: string): Promise<ImportFormat> {
  const names = new Set(await readdir(dir));
  if (names.has('realm.json')) return 'zulip';
  if (names.has('users.json') && names.has('channels.json')) return 'slack';
  if (await mattermostFile(dir)) return 'mattermost';
  throw new ImportError(
    path.basename(dir),
    'not a format this server imports (at its root, a Zulip export has realm.json, a Slack ' +
      'export users.json and channels.json, a Mattermost bulk export a .jsonl file)',
  );
}

export interface ConvertedSummary {
  /** Files a Slack or Mattermost export names but neither holds nor could be fetched. */
  filesNotFetched: string[];
  filesFetched: number;
  /** Reactions left out for an emoji the export does not define, by name. */
  unknownEmoji: Record<string, number>;
}

/** Refused before any work: an import into an existing organization's subdomain. */
async function checkFree(ctx: AppContext, subdomain: string) {
  const taken = await sqlPool(ctx).query('SELECT 1 FROM realms WHERE string_id = $1', [
    checkSubdomain(subdomain),
  ]);
  if (taken.rowCount) {
    throw new ImportError('--subdomain', `an organization '${subdomain}' already exists`);
  }
}

/**
 * A Slack or Mattermost export converted into Zulip's export format under `out`, as Zulip's
 * own converters do before its import; what the conversion could not carry is in `report`.
 */
async function convert(
  ctx: AppContext,
  job: {
    format: 'slack' | 'mattermost';
    dir: string;
    out: string;
    input: ImportRealmInput;
    report: ConvertReport;
    progress: ProgressReporter;
  },
): Promise<number> {
  const { dir, out, input, report, progress } = job;
  await mkdir(out, { recursive: true });
  const realmName = input.subdomain || 'Imported organization';
  if (job.format === 'slack') {
    const result = await new SlackConverter({
      dir,
      out,
      realmName,
      report,
      config: ctx.config,
      token: input.slackToken,
      progress,
    }).convert();
    return result.filesFetched;
  }
  await new MattermostConverter({
    dir,
    out,
    team: input.team,
    realmName,
    report,
    progress,
  }).convert();
  return 0;
}

/**
 * `cli import`: unpacks the input if it is an archive (within size limits, refusing entries
 * that point outside it), finds its format, and imports it as a new organization.
 */
export async function importRealm(
  ctx: AppContext,
  input: ImportRealmInput,
): Promise<ImportSummary & ConvertedSummary & { format: ImportFormat }> {
  const progress = input.progress ?? noProgress;
  const onMissing = input.onMissing ?? 'stop';
  await checkFree(ctx, input.subdomain);
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
    const report = new ConvertReport(onMissing);
    let filesFetched = 0;
    if (format !== 'zulip') {
      const out = path.join(scratch, 'converted');
      filesFetched = await convert(ctx, { format, dir, out, input, report, progress });
      dir = out;
    }
    const summary = await importZulipExport(ctx, {
      dir,
      subdomain: input.subdomain,
      onMissing,
      // Zulip's converters mark imported history read; its own exports keep their flags.
      markRead: format !== 'zulip',
      progress,
    });
    return {
      format,
      ...summary,
      ignoredFields: { ...report.ignoredFields, ...summary.ignoredFields },
      missing: [...report.missing, ...summary.missing].slice(0, 100),
      missingCount: report.missingCount + summary.missingCount,
      filesNotFetched: report.filesNotFetched,
      filesFetched,
      unknownEmoji: report.unknownEmoji,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
