import type { Readable } from 'node:stream';

/** One stored object, opened for reading. */
export interface StoredObject {
  body: Readable;
  /** Bytes in `body` (the range's length when a range was asked for). */
  length: number;
  lastModified: Date | null;
  etag: string | null;
  /** Set when a byte range was answered: `bytes start-end/total`. */
  contentRange: string | null;
}

/** What a download may pass on from the client's request. */
export interface ReadConditions {
  range?: string;
  ifNoneMatch?: string;
}

/** A conditional read whose answer is not a body: 304 (unchanged) or 416 (bad range). */
export class NotReadable extends Error {
  constructor(readonly status: 304 | 416) {
    super(status === 304 ? 'not modified' : 'range not satisfiable');
  }
}

/**
 * Where uploaded files, custom emoji and avatars live, by key: `files/<path_id>` for uploads,
 * `<realm_id>/emoji/images/<file>` and `<realm_id>/<user_id>.png` for what `/user_avatars/`
 * serves. The same keys on local disk (under UPLOADS_DIR) and in an S3 bucket, so moving from
 * one to the other is a copy.
 */
export interface UploadStore {
  readonly kind: 'local' | 's3';
  /**
   * Stores a file from local disk. The source may be moved away (the caller removes any rest)
   * unless `keepSource`.
   */
  putFile(
    key: string,
    sourcePath: string,
    contentType: string | null,
    options?: { keepSource?: boolean },
  ): Promise<void>;
  putBuffer(key: string, data: Buffer, contentType: string | null): Promise<void>;
  /** The object, or null when there is none; NotReadable for a 304 or 416 answer. */
  read(key: string, conditions?: ReadConditions): Promise<StoredObject | null>;
  exists(key: string): Promise<boolean>;
  /** Removes the object; one that is gone already is fine. */
  delete(key: string): Promise<void>;
  /** Every stored object, spooled files excluded. */
  list(): AsyncIterable<{ key: string; size: number }>;
}

/** Keys are relative paths of plain segments: nothing may climb out of the store's root. */
export function checkKey(key: string): string {
  const segments = key.split('/');
  if (!key || segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) {
    throw new Error(`invalid storage key '${key}'`);
  }
  return key;
}
