import path from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import type { AppContext } from '../../../libs/core/context';
import { exportRealm } from '../../../libs/import-export/export-realm';
import { ImportError } from '../../../libs/import-export/errors';
import {
  IMPORT_FORMATS,
  importRealm,
  type ImportFormat,
} from '../../../libs/import-export/import-realm';
import type { ProgressReporter } from '../../../libs/import-export/progress';
import { optionalFlag, parseFlags, requireFlag, UsageError } from '../args';
import { findRealm } from './lookup';

/** Lines in the logs at most this often per stage; a bar on a terminal. */
const LOG_EVERY_MS = 5_000;

/** A progress bar on stderr when it is a terminal, else a log line now and then per stage. */
function reporter(ctx: AppContext): { report: ProgressReporter; stop: () => void } {
  if (process.stderr.isTTY) {
    let bar: SingleBar | null = null;
    let stage = '';
    const report: ProgressReporter = (e) => {
      if (e.stage !== stage) {
        bar?.stop();
        stage = e.stage;
        bar = new SingleBar(
          { format: `${e.stage.padEnd(28)} [{bar}] {value}/{total}`, stream: process.stderr },
          Presets.shades_classic,
        );
        bar.start(e.total ?? e.done, e.done);
      }
      bar?.setTotal(e.total ?? e.done);
      bar?.update(e.done);
    };
    return { report, stop: () => bar?.stop() };
  }
  let last = new Map<string, number>();
  const report: ProgressReporter = (e) => {
    const now = Date.now();
    const finished = e.total !== undefined && e.done >= e.total;
    if (!finished && now - (last.get(e.stage) ?? 0) < LOG_EVERY_MS) return;
    last.set(e.stage, now);
    // At warn: the CLI's logger drops info so that stdout stays the answer; progress is wanted.
    ctx.log.warn('cli', 'progress', { stage: e.stage, done: e.done, total: e.total });
  };
  return { report, stop: () => (last = new Map()) };
}

/** A bad input names its file and record; the operator needs no stack trace for it. */
async function plainErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ImportError) throw new InputError(err.message);
    throw err;
  }
}

/** Exit status 1 with the message alone (main prints a stack only for unexpected errors). */
export class InputError extends UsageError {}

/**
 * `import --from PATH --subdomain S [--format zulip|slack|mattermost] [--team T]
 * [--slack-token X] [--on-missing stop|skip]`: a new organization from another server's export.
 */
export async function importCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(
    argv,
    ['from', 'subdomain', 'format', 'max-unpacked-gib', 'team', 'slack-token', 'on-missing'],
    ['skip-missing'],
  );
  const onMissing = optionalFlag(flags, 'on-missing') ?? (flags['skip-missing'] ? 'skip' : 'stop');
  if (onMissing !== 'skip' && onMissing !== 'stop') {
    throw new UsageError('--on-missing must be stop or skip');
  }
  const from = path.resolve(requireFlag(flags, 'from'));
  const subdomain = optionalFlag(flags, 'subdomain');
  if (subdomain === undefined) throw new UsageError('--subdomain is required');
  const format = optionalFlag(flags, 'format');
  if (format !== undefined && !IMPORT_FORMATS.includes(format as ImportFormat)) {
    throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
  }
  const maxGib = optionalFlag(flags, 'max-unpacked-gib');
  if (maxGib !== undefined && !(Number(maxGib) > 0)) {
    throw new UsageError('--max-unpacked-gib must be a positive number');
  }
  const { report, stop } = reporter(ctx);
  try {
    const summary = await plainErrors(() =>
      importRealm(ctx, {
        from,
        subdomain: subdomain === 'root' ? '' : subdomain,
        format: format as ImportFormat | undefined,
        onMissing,
        team: optionalFlag(flags, 'team'),
        slackToken: optionalFlag(flags, 'slack-token') ?? process.env.SLACK_TOKEN,
        limits:
          maxGib === undefined
            ? undefined
            : { maxBytes: Number(maxGib) * 1024 ** 3, maxEntries: 2_000_000 },
        progress: report,
      }),
    );
    return { ...summary };
  } finally {
    stop();
  }
}

/** `export --realm S --to FILE`: the organization in Zulip's export format, as a .tar.gz. */
export async function exportCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'to']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const file = path.resolve(requireFlag(flags, 'to'));
  const { report, stop } = reporter(ctx);
  try {
    return { ...(await exportRealm(ctx, { realmId: realm.id, file, progress: report })) };
  } finally {
    stop();
  }
}
