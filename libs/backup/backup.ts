import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import type { AppContext } from '../core/context';
import { FEATURE_LEVEL, SERVER_VERSION } from '../domain/version';
import { uploadStore } from '../storage/upload-store';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  DATABASE_FILE,
  MANIFEST_FILE,
  secretKeyFingerprint,
  UPLOADS_DIR,
  type BackupManifest,
} from './manifest';
import { libpqConnection, pgTool } from './pg-tools';

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** The last migration recorded as applied: what the dump's schema is. */
export async function schemaVersion(databaseUrl: string): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM "_prisma_migrations"
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
        ORDER BY migration_name DESC LIMIT 1`,
    );
    if (!rows[0]) throw new Error('the database has no applied migrations: nothing to back up');
    return rows[0].migration_name;
  } finally {
    await client.end();
  }
}

/**
 * Writes a backup into `dir` (new or empty): a pg_dump custom-format dump of the database,
 * every stored object (uploads, avatars, emoji) from the local or S3 store under `uploads/`
 * by key, and a manifest, written last, so a directory without one is not a backup. The dump
 * is one consistent snapshot; files uploaded while it runs may or may not be in the copy.
 */
export async function writeBackup(ctx: AppContext, dir: string): Promise<BackupManifest> {
  await mkdir(dir, { recursive: true });
  if ((await readdir(dir)).length > 0) throw new Error(`${dir} is not empty`);
  const version = await schemaVersion(ctx.config.databaseUrl);
  const databaseFile = path.join(dir, DATABASE_FILE);
  const pg = libpqConnection(ctx.config.databaseUrl);
  await pgTool(
    'pg_dump',
    [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      `--file=${databaseFile}`,
      `--dbname=${pg.url}`,
    ],
    pg.env,
  );

  const store = uploadStore(ctx.config);
  const uploads = { dir: UPLOADS_DIR, source: store.kind, objects: 0, bytes: 0 };
  for await (const { key } of store.list()) {
    const object = await store.read(key);
    if (!object) continue; // Deleted since it was listed.
    const target = path.join(dir, UPLOADS_DIR, ...key.split('/'));
    await mkdir(path.dirname(target), { recursive: true });
    await pipeline(object.body, createWriteStream(target));
    uploads.objects += 1;
    uploads.bytes += (await stat(target)).size;
  }

  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    created_at: new Date().toISOString(),
    server_version: SERVER_VERSION,
    feature_level: FEATURE_LEVEL,
    schema_version: version,
    database: {
      file: DATABASE_FILE,
      format: 'pg_dump custom',
      bytes: (await stat(databaseFile)).size,
      sha256: await sha256Of(databaseFile),
    },
    uploads,
    secret_key_sha256: secretKeyFingerprint(ctx.config.secretKey),
  };
  await writeFile(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export { sha256Of };
