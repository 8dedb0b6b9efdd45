import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../../core/config';
import { SPOOL_DIR } from '../../storage/local-store';
import { uploadStore, type UploadStoreConfig } from '../../storage/upload-store';

/**
 * An uploaded file's key in the upload store: a `files/` tree keyed by path ID (as Zulip's
 * LOCAL_UPLOADS_DIR has), apart from the `<realm_id>/` trees of emoji and avatars.
 */
export const attachmentKey = (pathId: string) => `files/${pathId}`;

/**
 * Removes an uploaded file (gone already is fine); on local disk its directory goes too, as it
 * holds nothing else: the random middle segment of a path ID is the file's alone.
 */
export const removeStoredFile = (config: UploadStoreConfig, pathId: string): Promise<void> =>
  uploadStore(config).delete(attachmentKey(pathId));

/** Where multipart parsing spools a file before it is checked and moved into place. */
export const spoolDir = (config: Pick<Config, 'uploadsDir'>) =>
  path.join(config.uploadsDir, SPOOL_DIR);

/**
 * Zulip's sanitize_name: safe on disk and in a URL. Unicode letters and digits stay; other
 * characters but `.`, `-` and `_` go; runs of spaces and dashes become one dash.
 */
export function sanitizeFileName(name: string): string {
  const value = name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_\s.-]/gu, '')
    .trim()
    .replace(/[-\s]+/gu, '-');
  return value === '' || value === '.' || value === '..' ? 'uploaded-file' : value;
}

/** The longest name a file system gives one path segment (NAME_MAX on Linux), in bytes. */
const MAX_SEGMENT_BYTES = 255;
/** An extension kept when a name is shortened: `.` and up to this many characters. */
const MAX_KEPT_EXTENSION = 16;

/**
 * A sanitized name cut to MAX_SEGMENT_BYTES of UTF-8, keeping its extension (what the file is
 * served as) and whole characters: a longer segment fails on local disk with ENAMETOOLONG.
 */
export function shortenFileName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_SEGMENT_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= MAX_KEPT_EXTENSION + 1 ? name.slice(dot) : '';
  let budget = MAX_SEGMENT_BYTES - Buffer.byteLength(extension);
  let stem = '';
  for (const char of name.slice(0, name.length - extension.length)) {
    budget -= Buffer.byteLength(char);
    if (budget < 0) break;
    stem += char;
  }
  return stem + extension;
}

/** `<realm_id>/<random>/<sanitized name>`: unguessable, and the URL still ends in the name. */
export const newPathId = (realmId: number, fileName: string) =>
  `${realmId}/${randomBytes(18).toString('base64url')}/${shortenFileName(sanitizeFileName(fileName))}`;

export const uploadUrl = (pathId: string) => `/user_uploads/${pathId}`;

/** Types a browser may show inline (Zulip's INLINE_MIME_TYPES); anything else downloads. */
export const INLINE_MIME_TYPES = new Set([
  'application/pdf',
  'audio/aac',
  'audio/flac',
  'audio/mp4',
  'audio/mpeg',
  'audio/wav',
  'audio/webm',
  'image/apng',
  'image/avif',
  'image/gif',
  'image/jpeg',
  'image/png',
  'image/webp',
  'text/plain',
  'video/mp4',
  'video/webm',
]);
