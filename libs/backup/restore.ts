import { readFile, stat } from 'node:fs/promises';
import mime from 'mime-types';
import path from 'node:path';
import { Client } from 'pg';
import { at } from '../core/at';
import type { AppContext } from '../core/context';
import { applyMigrations, ensureDatabase, listMigrations } from '../db/migrate';
import { uploadStore } from '../storage/upload-store';
import { sha256Of } from './backup';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  MANIFEST_FILE,
  secretKeyFingerprint,
  type BackupManifest,
} from './manifest';
import { BackupRefused, checkRestoreVersion, libpqConnection, pgTool } from './pg-tools';

/** A restore that would not be sound, refused before anything changed. */
export class RestoreRefused extends BackupRefused {}

/** Reads and checks a backup's manifest and dump against this server, before anything changes. */
export async function checkBackup(ctx: AppContext, dir: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), 'utf8')) as BackupManifest;
  } catch (err) {
    throw new RestoreRefused(
      `${dir} holds no readable ${MANIFEST_FILE}: ${(err as Error).message}`,
    );
  }
  if (manifest.format !== BACKUP_FORMAT || manifest.format_version !== BACKUP_FORMAT_VERSION) {
    throw new RestoreRefused(
      `${dir} is not a backup this server reads (format ${manifest.format} ${manifest.format_version})`,
    );
  }
  if (!listMigrations().some((m) => m.name === manifest.schema_version)) {
    throw new RestoreRefused(
      `the backup's schema version ${manifest.schema_version} is unknown to this server: restore it with the release that wrote it (${manifest.server_version}) or a later one`,
    );
  }
  if (manifest.secret_key_sha256 !== secretKeyFingerprint(ctx.config.secretKey)) {
    throw new RestoreRefused(
      'SECRET_KEY differs from the one the backup was made with: API keys are stored encrypted with it; set the same SECRET_KEY',
    );
  }
  const dump = path.join(dir, manifest.database.file);
  if ((await sha256Of(dump)) !== manifest.database.sha256) {
    throw new RestoreRefused(`${dump} does not match the manifest's checksum`);
  }
  for (const file of manifest.uploads.files) {
    const copy = path.join(dir, manifest.uploads.dir, ...file.key.split('/'));
    const size = await stat(copy).then(
      (s) => s.size,
      () => null,
    );
    if (size === null) {
      throw new RestoreRefused(`upload ${file.key} is missing from the backup (${copy})`);
    }
    if (size !== file.bytes || (await sha256Of(copy)) !== file.sha256) {
      throw new RestoreRefused(
        `upload ${file.key} does not match the manifest's checksum: the backup is damaged (${copy})`,
      );
    }
  }
  await checkRestoreVersion(manifest.database.pg_dump_major);
  return manifest;
}

/** Creates the database if missing; refuses one that has any table. */
async function emptyDatabase(databaseUrl: string): Promise<string> {
  const name = await ensureDatabase(databaseUrl);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      `SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
    );
    if (Number(at(rows, 0).count) > 0) {
      throw new RestoreRefused(`database ${name} is not empty: restore into a new, empty database`);
    }
  } finally {
    await client.end();
  }
  return name;
}

/**
 * Restores a backup into an empty database and the configured upload store (local or S3),
 * then applies the migrations this release has and the backup did not. Redis is not restored:
 * it holds event queues clients re-create and jobs PostgreSQL re-creates.
 */
export async function restoreBackup(ctx: AppContext, dir: string) {
  const manifest = await checkBackup(ctx, dir);
  const database = await emptyDatabase(ctx.config.databaseUrl);
  const pg = libpqConnection(ctx.config.databaseUrl);
  await pgTool(
    'pg_restore',
    [
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      `--dbname=${pg.url}`,
      path.join(dir, manifest.database.file),
    ],
    pg.env,
  );
  const applied = await applyMigrations(ctx.config.databaseUrl);
  const store = uploadStore(ctx.config);
  let bytes = 0;
  for (const file of manifest.uploads.files) {
    const copy = path.join(dir, manifest.uploads.dir, ...file.key.split('/'));
    await store.putFile(file.key, copy, mime.lookup(file.key) || null, { keepSource: true });
    if (!(await store.exists(file.key))) {
      throw new Error(`'${file.key}' did not arrive in the ${store.kind} store`);
    }
    bytes += file.bytes;
  }
  return {
    database,
    schema_version: manifest.schema_version,
    migrations_applied: applied,
    uploads: {
      store: store.kind,
      objects: manifest.uploads.files.length,
      bytes,
      missing_at_backup: manifest.uploads.missing,
    },
    backup_created_at: manifest.created_at,
  };
}
