import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  checkKey,
  NotReadable,
  type ReadConditions,
  type StoredObject,
  type UploadStore,
} from './types';

/** The directory under the uploads root where multipart parsing spools files; never listed. */
export const SPOOL_DIR = 'tmp';

/** Uploads on this machine's disk (or a volume every replica mounts), under UPLOADS_DIR. */
export class LocalUploadStore implements UploadStore {
  readonly kind = 'local';

  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** Where a key lives on disk: what `res.sendFile` serves, with ranges and caching headers. */
  pathOf(key: string): string {
    return path.join(this.root, ...checkKey(key).split('/'));
  }

  async putFile(
    key: string,
    sourcePath: string,
    _contentType: string | null,
    options: { keepSource?: boolean } = {},
  ): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    if (options.keepSource) {
      await copyFile(sourcePath, target);
      return;
    }
    try {
      await rename(sourcePath, target);
    } catch (err) {
      // The spool on another file system than the uploads (a mounted volume): copy instead.
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await copyFile(sourcePath, target);
    }
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, data);
  }

  async read(key: string, conditions: ReadConditions = {}): Promise<StoredObject | null> {
    const file = this.pathOf(key);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return null;
    const etag = `"${info.size.toString(16)}-${info.mtimeMs.toString(16)}"`;
    if (conditions.ifNoneMatch === etag) throw new NotReadable(304);
    return {
      body: createReadStream(file),
      length: info.size,
      lastModified: info.mtime,
      etag,
      contentRange: null,
    };
  }

  async exists(key: string): Promise<boolean> {
    return (await stat(this.pathOf(key)).catch(() => null))?.isFile() ?? false;
  }

  /** Removes the file and its directory when that is left empty (an upload's random segment). */
  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await rm(file, { force: true });
    await rmdir(path.dirname(file)).catch(() => undefined);
  }

  async *list(): AsyncIterable<{ key: string; size: number }> {
    const entries = await readdir(this.root, { recursive: true, withFileTypes: true }).catch(
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      },
    );
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const key = path.relative(this.root, path.join(entry.parentPath, entry.name));
      const posixKey = key.split(path.sep).join('/');
      if (posixKey.startsWith(`${SPOOL_DIR}/`)) continue;
      const info = await stat(path.join(this.root, key));
      yield { key: posixKey, size: info.size };
    }
  }
}
