import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../libs/core/context';
import { migrationStatus } from '../../../libs/db/migrate';
import { uploadStore } from '../../../libs/storage/upload-store';
import { CommandFailed, optionalFlag, parseFlags, UsageError } from '../args';

interface Probe {
  ok: boolean;
  ms: number;
  detail?: string;
}

async function probe(timeoutMs: number, work: () => Promise<string | void>): Promise<Probe> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, ms: Date.now() - started, ...(detail ? { detail } : {}) };
  } catch (err) {
    return { ok: false, ms: Date.now() - started, detail: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `check`: is this installation able to serve? The configuration was read and validated before
 * any command runs (an invalid one exits 78 with every problem listed); then PostgreSQL answers
 * a query and has no pending migration, Redis answers PING, and the upload store takes, reads
 * and deletes a small file. Exit 0 when everything holds, 1 (with what failed) otherwise.
 */
export async function checkCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['timeout-seconds']);
  const seconds = Number(optionalFlag(flags, 'timeout-seconds') ?? '10');
  if (!(seconds > 0)) throw new UsageError('--timeout-seconds must be a positive number');
  const timeoutMs = seconds * 1000;
  const postgresql = await probe(timeoutMs, async () => {
    await ctx.db.$queryRaw`SELECT 1`;
    const status = await migrationStatus(ctx.config.databaseUrl);
    if (status.pending.length || status.failed.length) {
      throw new Error(
        `migrations not applied: ${[...status.failed, ...status.pending].join(', ')} (run migrate)`,
      );
    }
    return `${status.applied.length} migrations applied`;
  });
  const redis = await probe(timeoutMs, async () => {
    const answer: string = await ctx.redis.ping();
    if (answer !== 'PONG') throw new Error(`PING answered ${answer}`);
  });
  const storage = await probe(timeoutMs, async () => {
    const store = uploadStore(ctx.config);
    const key = `check-${randomBytes(8).toString('hex')}`;
    const body = Buffer.from('chat-server check');
    await store.putBuffer(key, body, 'text/plain');
    try {
      if (!(await store.exists(key))) throw new Error('a file just written is missing');
    } finally {
      await store.delete(key);
    }
    return ctx.config.s3 ? `s3://${ctx.config.s3.bucket}` : ctx.config.uploadsDir;
  });
  const result = { config: { ok: true }, postgresql, redis, storage };
  const failed = Object.entries({ postgresql, redis, storage }).filter(([, p]) => !p.ok);
  if (failed.length) {
    throw new CommandFailed(
      failed.map(([name, p]) => `${name}: ${p.detail ?? 'failed'}`).join('; '),
    );
  }
  return result;
}
