import { createHash } from 'node:crypto';

export const MANIFEST_FILE = 'manifest.json';
export const DATABASE_FILE = 'database.dump';
export const UPLOADS_DIR = 'uploads';
export const BACKUP_FORMAT = 'chat-server-backup';
export const BACKUP_FORMAT_VERSION = 1;

/** What `backup` wrote and `restore` checks before it touches anything. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  created_at: string;
  server_version: string;
  feature_level: number;
  /** The last migration applied to the database dumped: its schema version. */
  schema_version: string;
  database: { file: string; format: 'pg_dump custom'; bytes: number; sha256: string };
  uploads: { dir: string; source: 'local' | 's3'; objects: number; bytes: number };
  /**
   * A fingerprint of SECRET_KEY (not the key): API keys are stored encrypted with it, so a
   * restore under another key could not show users their keys.
   */
  secret_key_sha256: string;
}

export const secretKeyFingerprint = (secretKey: string) =>
  createHash('sha256').update(`chat-server backup\n${secretKey}`).digest('hex');
