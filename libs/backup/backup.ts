import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import {
  chmod,
  copyFile,
  link,
  mkdir,
  readdir,
  readFile,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import { at } from '../core/at';
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
  type BackedUpObject,
  type BackupManifest,
} from './manifest';
import { BackupRefused, checkDumpVersion, libpqConnection, pgTool } from './pg-tools';

/** Backups hold password hashes and encrypted keys: readable by their owner only. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Makes `dir` (and missing parents) with mode 0700 whatever the umask. */
export async function privateDir(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: DIR_MODE });
  if (!first) {
    await chmod(dir, DIR_MODE);
    return;
  }
  // Every folder mkdir made, from the first one down: the umask may have taken bits off.
  for (let d = dir; ; d = path.dirname(d)) {
    await chmod(d, DIR_MODE);
    if (d === first) break;
  }
}

/** The last migration recorded as applied: what the dump's schema is. */
async function schemaVersionIn(client: Client): Promise<string> {
  const { rows } = await client.query<{ migration_name: string }>(
    `SELECT migration_name FROM "_prisma_migrations"
      WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
      ORDER BY migration_name DESC LIMIT 1`,
  );
  if (!rows[0])
    throw new BackupRefused('the database has no applied migrations: nothing to back up');
  return rows[0].migration_name;
}

export async function schemaVersion(databaseUrl: string): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await schemaVersionIn(client);
  } finally {
    await client.end();
  }
}

interface Wanted {
  key: string;
  /** Known from the row for uploads; null for emoji and avatars. */
  bytes: number | null;
  version: string | null;
}

/**
 * The stored objects the dumped rows name, read in the dump's snapshot: uploaded files
 * (`attachments`), custom emoji images, and uploaded avatars (with their version, since a new
 * avatar replaces the old under the same key).
 */
async function wantedObjects(client: Client): Promise<Wanted[]> {
  const { rows } = await client.query<{
    key: string;
    bytes: number | null;
    version: string | null;
  }>(
    `SELECT 'files/' || path_id AS key, size AS bytes, NULL AS version FROM attachments
     UNION ALL
     SELECT realm_id || '/emoji/images/' || file_name, NULL, NULL
       FROM realm_emoji WHERE file_name IS NOT NULL
     UNION ALL
     SELECT realm_id || '/' || id || suffix || '.png', NULL, avatar_version::text
       FROM users, (VALUES (''), ('-medium')) AS sizes (suffix)
      WHERE avatar_source = 'U'
     ORDER BY 1`,
  );
  return rows;
}

/** The newest finished backup in `root` (a folder with a manifest), if any. */
async function newestBackup(root: string): Promise<string | null> {
  const finished = await finishedBackups(root);
  return finished.at(-1) ?? null;
}

/** Finished backups in `root`, oldest first (their names are UTC times). */
async function finishedBackups(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const e of entries
    .filter((x) => x.isDirectory())
    .sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(root, e.name);
    if (
      await stat(path.join(dir, MANIFEST_FILE)).then(
        () => true,
        () => false,
      )
    )
      found.push(dir);
  }
  return found;
}

async function readManifest(dir: string): Promise<BackupManifest> {
  return JSON.parse(await readFile(path.join(dir, MANIFEST_FILE), 'utf8')) as BackupManifest;
}

/** Hashes what passes through. */
function hashing(hash: ReturnType<typeof createHash>): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
}

export interface BackupOptions {
  /** A finished backup whose unchanged objects are linked instead of read from the store. */
  previous?: string | null;
}

/**
 * Writes a backup into `dir` (new or empty, made 0700): a pg_dump custom-format dump of the
 * database, the stored objects its rows name (uploads, emoji, avatars) under `uploads/` by
 * key, and a manifest with each object's size and SHA-256, written last, so a directory without
 * one is not a backup. The file list is read in the snapshot pg_dump dumps, so the uploads match
 * the dump. With `previous`, an object it holds unchanged (same key, size and version) is
 * hard-linked from it rather than read from the store again.
 */
export async function writeBackup(
  ctx: AppContext,
  dir: string,
  options: BackupOptions = {},
): Promise<BackupManifest> {
  await privateDir(dir);
  if ((await readdir(dir)).length > 0) throw new BackupRefused(`${dir} is not empty`);
  const snapshot = new Client({ connectionString: ctx.config.databaseUrl });
  await snapshot.connect();
  try {
    const { rows: versionRows } = await snapshot.query<{ major: number }>(
      `SELECT current_setting('server_version_num')::int / 10000 AS major`,
    );
    const serverMajor = at(versionRows, 0).major;
    const dumpMajor = await checkDumpVersion(serverMajor);
    // pg_dump reads the snapshot this transaction exports; the file list is read in it too.
    await snapshot.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const { rows: snapshotRows } = await snapshot.query<{ id: string }>(
      'SELECT pg_export_snapshot() AS id',
    );
    const exported = at(snapshotRows, 0).id;
    const version = await schemaVersionIn(snapshot);
    const wanted = await wantedObjects(snapshot);
    const databaseFile = path.join(dir, DATABASE_FILE);
    const pg = libpqConnection(ctx.config.databaseUrl);
    await pgTool(
      'pg_dump',
      [
        '--format=custom',
        '--no-owner',
        '--no-privileges',
        `--snapshot=${exported}`,
        `--file=${databaseFile}`,
        `--dbname=${pg.url}`,
      ],
      pg.env,
    );
    await snapshot.query('COMMIT');
    await chmod(databaseFile, FILE_MODE);

    const uploads = await copyObjects(ctx, dir, wanted, options.previous ?? null);
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
        postgresql_major: serverMajor,
        pg_dump_major: dumpMajor,
      },
      uploads,
      secret_key_sha256: secretKeyFingerprint(ctx.config.secretKey),
    };
    const manifestFile = path.join(dir, MANIFEST_FILE);
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { mode: FILE_MODE });
    await chmod(manifestFile, FILE_MODE);
    return manifest;
  } finally {
    await snapshot.end();
  }
}

async function copyObjects(
  ctx: AppContext,
  dir: string,
  wanted: Wanted[],
  previousDir: string | null,
): Promise<BackupManifest['uploads']> {
  const store = uploadStore(ctx.config);
  const previous = new Map<string, BackedUpObject>();
  if (previousDir) {
    const before = await readManifest(previousDir);
    for (const f of before.uploads.files ?? []) previous.set(f.key, f);
  }
  const uploads: BackupManifest['uploads'] = {
    dir: UPLOADS_DIR,
    source: store.kind,
    objects: 0,
    bytes: 0,
    reused: 0,
    missing: [],
    files: [],
  };
  for (const { key, bytes, version } of wanted) {
    const target = path.join(dir, UPLOADS_DIR, ...key.split('/'));
    await privateDir(path.dirname(target));
    const prior = previous.get(key);
    let entry: BackedUpObject | null = null;
    if (
      prior &&
      previousDir &&
      (prior.version ?? null) === version &&
      (bytes === null || prior.bytes === bytes)
    ) {
      entry = await reuse(path.join(previousDir, UPLOADS_DIR, ...key.split('/')), target, prior);
      if (entry) uploads.reused += 1;
    }
    if (!entry) {
      const object = await store.read(key);
      if (!object) {
        // Deleted since the snapshot, or lost before it: the manifest says which.
        uploads.missing.push(key);
        continue;
      }
      const hash = createHash('sha256');
      await pipeline(object.body, hashing(hash), createWriteStream(target, { mode: FILE_MODE }));
      await chmod(target, FILE_MODE);
      entry = {
        key,
        bytes: (await stat(target)).size,
        sha256: hash.digest('hex'),
        ...(version === null ? {} : { version }),
      };
    }
    uploads.files.push(entry);
    uploads.objects += 1;
    uploads.bytes += entry.bytes;
  }
  return uploads;
}

/** Links (or, across file systems, copies) the previous backup's copy if it is still whole. */
async function reuse(
  from: string,
  to: string,
  prior: BackedUpObject,
): Promise<BackedUpObject | null> {
  const size = await stat(from).then(
    (s) => s.size,
    () => -1,
  );
  if (size !== prior.bytes) return null;
  try {
    await link(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await chmod(to, FILE_MODE);
  }
  return prior;
}

/** `YYYYMMDDTHHMMSSZ`: the name of a backup in a backup folder, sorting by time. */
const backupName = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

export interface RotatedBackup {
  dir: string;
  manifest: BackupManifest;
  /** The backup unchanged objects were taken from. */
  previous: string | null;
  /** Older backups deleted to keep `keep`. */
  removed: string[];
}

/**
 * A new backup in `root/<UTC time>`, incremental against the newest finished one there, then
 * deletes the oldest finished backups beyond `keep` (unfinished folders are left for a look).
 */
export async function backupInto(
  ctx: AppContext,
  root: string,
  options: { keep?: number } = {},
): Promise<RotatedBackup> {
  await privateDir(root);
  const previous = await newestBackup(root);
  const dir = path.join(root, backupName(new Date()));
  const manifest = await writeBackup(ctx, dir, { previous });
  const removed: string[] = [];
  if (options.keep !== undefined) {
    const finished = await finishedBackups(root);
    for (const old of finished.slice(0, Math.max(0, finished.length - options.keep))) {
      await rm(old, { recursive: true, force: true });
      removed.push(old);
    }
  }
  return { dir, manifest, previous, removed };
}

export { sha256Of };
