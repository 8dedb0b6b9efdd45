import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import yauzl from 'yauzl';
import { ImportError } from './errors';

/** How much an archive may unpack to: past it, the archive is taken for a decompression bomb. */
export interface UnpackLimits {
  maxBytes: number;
  maxEntries: number;
}

export const DEFAULT_UNPACK_LIMITS: UnpackLimits = {
  maxBytes: 64 * 1024 ** 3,
  maxEntries: 2_000_000,
};

/**
 * An archive entry's name as a path under the destination, or an error: absolute paths, drive
 * letters and `..` segments would write outside it (zip slip).
 */
export function entryPath(archive: string, dest: string, name: string): string {
  const normalized = name.replace(/\\/g, '/');
  if (
    normalized.startsWith('/') ||
    /^[A-Za-z]:/.test(normalized) ||
    normalized.split('/').includes('..')
  ) {
    throw new ImportError(archive, `entry ${JSON.stringify(name)} points outside the archive`);
  }
  const target = path.resolve(dest, normalized);
  if (target !== dest && !target.startsWith(dest + path.sep)) {
    throw new ImportError(archive, `entry ${JSON.stringify(name)} points outside the archive`);
  }
  return target;
}

/** Counts bytes through it and fails the stream once the archive's total passes the limit. */
function meter(archive: string, budget: { left: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      budget.left -= chunk.length;
      if (budget.left < 0) {
        done(new ImportError(archive, 'unpacks to more than the size limit (decompression bomb?)'));
      } else done(null, chunk);
    },
  });
}

export async function archiveKind(file: string): Promise<'zip' | 'tar.gz' | 'tar' | null> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(262);
    const { bytesRead } = await handle.read(head, 0, 262, 0);
    if (bytesRead >= 4 && head.readUInt32LE(0) === 0x04034b50) return 'zip';
    if (bytesRead >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
    if (bytesRead >= 262 && head.toString('latin1', 257, 262) === 'ustar') return 'tar';
    return null;
  } finally {
    await handle.close();
  }
}

/** Unpacks a .tar or .tar.gz into `dest`: files and directories only, within the limits. */
export async function unpackTar(file: string, dest: string, limits: UnpackLimits): Promise<void> {
  const archive = path.basename(file);
  const budget = { left: limits.maxBytes };
  let entries = 0;
  const writes: Promise<void>[] = [];
  // The first entry's error, set by the parser's callback.
  const failed: { error?: Error } = {};
  const parser = new tar.Parser({
    onReadEntry: (entry) => {
      try {
        if (failed.error) throw failed.error;
        entries += 1;
        if (entries > limits.maxEntries) throw new ImportError(archive, 'has too many entries');
        const target = entryPath(archive, dest, entry.path);
        if (entry.type === 'Directory') {
          entry.resume();
          writes.push(mkdir(target, { recursive: true }).then(() => undefined));
          return;
        }
        if (entry.type !== 'File' && entry.type !== 'OldFile') {
          // Links could point anywhere; nothing in an export needs them.
          entry.resume();
          return;
        }
        writes.push(
          mkdir(path.dirname(target), { recursive: true }).then(() =>
            pipeline(
              entry as unknown as Readable,
              meter(archive, budget),
              createWriteStream(target),
            ),
          ),
        );
      } catch (err) {
        failed.error ??= err as Error;
        entry.resume();
      }
    },
  });
  try {
    await pipeline(createReadStream(file), meter(archive, { left: limits.maxBytes * 4 }), parser);
  } catch (err) {
    throw (
      failed.error ?? new ImportError(archive, `not a readable archive (${(err as Error).message})`)
    );
  }
  const settled = await Promise.allSettled(writes);
  if (failed.error) throw failed.error;
  const rejected = settled.find((s) => s.status === 'rejected');
  if (rejected) throw (rejected as PromiseRejectedResult).reason;
}

/** Unpacks a .zip into `dest`, within the limits; sizes are counted as bytes come out. */
export async function unpackZip(file: string, dest: string, limits: UnpackLimits): Promise<void> {
  const archive = path.basename(file);
  const budget = { left: limits.maxBytes };
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(
      file,
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: true },
      (err, z) =>
        err ? reject(new ImportError(archive, `not a readable zip (${err.message})`)) : resolve(z),
    ),
  );
  let entries = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) =>
        reject(err instanceof ImportError ? err : new ImportError(archive, err.message)),
      );
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          entries += 1;
          if (entries > limits.maxEntries) throw new ImportError(archive, 'has too many entries');
          const name = Buffer.isBuffer(entry.fileName)
            ? (entry.fileName as Buffer).toString('utf8')
            : entry.fileName;
          const target = entryPath(archive, dest, name);
          if (name.endsWith('/')) {
            await mkdir(target, { recursive: true });
            return;
          }
          if (entry.uncompressedSize > budget.left) {
            throw new ImportError(
              archive,
              'unpacks to more than the size limit (decompression bomb?)',
            );
          }
          await mkdir(path.dirname(target), { recursive: true });
          const stream = await new Promise<Readable>((res, rej) =>
            zip.openReadStream(entry, (err, s) => (err ? rej(err) : res(s))),
          );
          await pipeline(stream, meter(archive, budget), createWriteStream(target));
        })().then(
          () => zip.readEntry(),
          (err: Error) =>
            reject(err instanceof ImportError ? err : new ImportError(archive, err.message)),
        );
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}
