import { createHash } from 'node:crypto';

export const MANIFEST_FILE = 'manifest.json';
export const DATABASE_FILE = 'database.dump';
export const UPLOADS_DIR = 'uploads';
export const BACKUP_FORMAT = 'chat-server-backup';
/** 2: each stored object listed with its size and SHA-256; the PostgreSQL versions recorded. */
export const BACKUP_FORMAT_VERSION = 2;

/** One stored object in the backup, under `uploads/<key>`. */
export interface BackedUpObject {
  key: string;
  bytes: number;
  sha256: string;
  /** What changes when the object is replaced under the same key (an avatar's version). */
  version?: string;
}

/** What `backup` wrote and `restore` checks before it touches anything. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  created_at: string;
  server_version: string;
  feature_level: number;
  /** The last migration applied to the database dumped: its schema version. */
  schema_version: string;
  database: {
    file: string;
    format: 'pg_dump custom';
    bytes: number;
    sha256: string;
    /** Major versions: the server dumped, and the pg_dump that dumped it (pg_restore needs it). */
    postgresql_major: number;
    pg_dump_major: number;
  };
  uploads: {
    dir: string;
    source: 'local' | 's3';
    objects: number;
    bytes: number;
    /** Objects taken from the previous backup instead of the store (unchanged since). */
    reused: number;
    /** Named by a row of the dump but absent from the store when the backup ran. */
    missing: string[];
    files: BackedUpObject[];
  };
  /**
   * A fingerprint of SECRET_KEY (not the key): API keys are stored encrypted with it, so a
   * restore under another key could not show users their keys.
   */
  secret_key_sha256: string;
}

export const secretKeyFingerprint = (secretKey: string) =>
  createHash('sha256').update(`chat-server backup\n${secretKey}`).digest('hex');
