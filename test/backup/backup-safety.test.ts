import { createHash } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  readdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupInto, writeBackup } from '../../libs/backup/backup';
import { BackupRefused } from '../../libs/backup/pg-tools';
import { restoreBackup, RestoreRefused } from '../../libs/backup/restore';
import type { BackupManifest } from '../../libs/backup/manifest';
import { uploadStore } from '../../libs/storage/upload-store';
import { cliEnv, runCli } from '../cli';
import { databaseUrl, withAdminClient } from '../databases';
import type { TestUser } from '../factories';
import { organization, type Organization } from '../organization';
import { startUploadBackend, type RunningBackend } from '../upload-backends';

/**
 * Issue 46, point 2: backups readable by their owner only, each upload checked on restore,
 * uploads copied incrementally from the dumped rows, retention, and pg_dump's version checked.
 */
let org: Organization<'alice', 'files'>;
let alice: TestUser;
let backend: RunningBackend;
const work = mkdtempSync(path.join(tmpdir(), 'backup-safety-'));

beforeAll(async () => {
  backend = await startUploadBackend('local');
  org = await organization({
    env: backend.env,
    members: { alice: 'member' },
    channels: { files: ['alice'] },
  });
  ({ alice } = org.users);
}, 60000);
afterAll(async () => {
  await org?.close();
  await backend?.close();
  rmSync(work, { recursive: true, force: true });
});

async function upload(name: string, text: string): Promise<string> {
  const res = await org
    .as(alice)
    .post('/user_uploads')
    .attach('file', Buffer.from(text), { filename: name, contentType: 'text/plain' });
  expect(res.status).toBe(200);
  return res.body.url as string;
}

/** Every path under `dir` with its permission bits. */
function modes(dir: string): { file: string; mode: number; dir: boolean }[] {
  const out = [{ file: dir, mode: statSync(dir).mode & 0o777, dir: true }];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...modes(p));
    else out.push({ file: p, mode: statSync(p).mode & 0o777, dir: false });
  }
  return out;
}

const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as BackupManifest;

it('writes files 0600 and folders 0700 under a permissive umask', async () => {
  await upload('plan.txt', 'the plan');
  const old = process.umask(0o002);
  try {
    const dir = path.join(work, 'perms', 'nested', 'backup');
    await writeBackup(org.t, dir);
    const all = modes(path.join(work, 'perms'));
    expect(all.filter((m) => !m.dir).length).toBeGreaterThanOrEqual(3);
    for (const m of all)
      expect({ file: m.file, mode: m.mode }).toEqual({ file: m.file, mode: m.dir ? 0o700 : 0o600 });
  } finally {
    process.umask(old);
  }
}, 60000);

it('lists each upload with its checksum; restore refuses a damaged upload and changes nothing', async () => {
  const dir = path.join(work, 'damaged');
  const manifest = await writeBackup(org.t, dir);
  const entry = manifest.uploads.files.find((f) => f.key.endsWith('/plan.txt'))!;
  expect(entry).toEqual({
    key: expect.stringMatching(/^files\/.+\/plan\.txt$/),
    bytes: 8,
    sha256: createHash('sha256').update('the plan').digest('hex'),
  });
  const copy = path.join(dir, 'uploads', ...entry.key.split('/'));
  chmodSync(copy, 0o600);
  writeFileSync(copy, 'the plan, changed');
  const target = `${org.t.databaseName}_restore_damaged`;
  const restoreCtx = { ...org.t, config: { ...org.t.config, databaseUrl: databaseUrl(target) } };
  await expect(restoreBackup(restoreCtx, dir)).rejects.toThrow(RestoreRefused);
  await expect(restoreBackup(restoreCtx, dir)).rejects.toThrow(
    `upload ${entry.key} does not match the manifest's checksum: the backup is damaged`,
  );
  const created = await withAdminClient(
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [target])).rowCount,
  );
  expect(created).toBe(0);
}, 60000);

it('copies only what the dumped rows name, reusing unchanged uploads of the previous backup', async () => {
  const root = path.join(work, 'rotating');
  const store = uploadStore(org.t.config);
  // In the store but named by no row: not part of the backup.
  await store.putBuffer('files/orphan/left-over.txt', Buffer.from('no row'), 'text/plain');
  const first = await backupInto(org.t, root);
  expect(first.previous).toBeNull();
  expect(first.manifest.uploads.reused).toBe(0);
  const keys = first.manifest.uploads.files.map((f) => f.key);
  expect(keys).not.toContain('files/orphan/left-over.txt');
  const rows = await org.t.db.attachment.findMany({ select: { pathId: true } });
  expect(keys.sort()).toEqual(rows.map((r) => `files/${r.pathId}`).sort());

  await new Promise((resolve) => setTimeout(resolve, 1100));
  await upload('minutes.txt', 'the minutes');
  const second = await backupInto(org.t, root);
  expect(second.previous).toBe(first.dir);
  expect(second.manifest.uploads.objects).toBe(first.manifest.uploads.objects + 1);
  expect(second.manifest.uploads.reused).toBe(first.manifest.uploads.objects);
  // Reused means the same file, linked: no second copy of its bytes.
  const planKey = keys.find((k) => k.endsWith('/plan.txt'))!;
  const inode = (dir: string) => statSync(path.join(dir, 'uploads', ...planKey.split('/'))).ino;
  expect(inode(second.dir)).toBe(inode(first.dir));

  // A row whose file is gone from the store: kept from the previous backup, which has it...
  const minutesKey = second.manifest.uploads.files.find((f) => f.key.endsWith('/minutes.txt'))!.key;
  await store.delete(minutesKey);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const third = await backupInto(org.t, root, { keep: 2 });
  expect(third.manifest.uploads.missing).toEqual([]);
  expect(third.manifest.uploads.reused).toBe(second.manifest.uploads.objects);
  // ...and named as missing by a backup without one to take it from.
  const alone = await writeBackup(org.t, path.join(work, 'alone'));
  expect(alone.uploads.missing).toEqual([minutesKey]);
  expect(third.removed).toEqual([first.dir]);
  expect(readdirSync(root).sort()).toEqual([path.basename(second.dir), path.basename(third.dir)]);
  // The reused files outlive the backup they were first copied into.
  expect(readFileSync(path.join(third.dir, 'uploads', ...planKey.split('/')), 'utf8')).toBe(
    'the plan',
  );
  expect(manifestOf(third.dir).uploads.files).toHaveLength(third.manifest.uploads.objects);
}, 90000);

it('refuses with a clear message when pg_dump is older than the server', async () => {
  const bin = path.join(work, 'old-bin');
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin);
  // An older client, as the image's pg_dump 15 is to a PostgreSQL 17 server.
  writeFileSync(path.join(bin, 'pg_dump'), '#!/bin/sh\necho "pg_dump (PostgreSQL) 9.6.24"\n', {
    mode: 0o755,
  });
  const dir = path.join(work, 'old-client');
  const run = await runCli(['backup', '--to', dir, '--json'], {
    ...cliEnv(org.t.config),
    ...backend.env,
    PATH: `${bin}:${process.env.PATH}`,
  });
  expect(run.code).toBe(1);
  expect(run.json.error).toMatch(
    /^pg_dump is version 9 and the server is PostgreSQL \d+: install the client of the server's major version \(Debian: postgresql-client-\d+\)/,
  );
  expect(readdirSync(dir)).toEqual([]);
  await expect(
    (async () => {
      const old = process.env.PATH;
      process.env.PATH = `${bin}:${old}`;
      try {
        await writeBackup(org.t, path.join(work, 'old-client-2'));
      } finally {
        process.env.PATH = old;
      }
    })(),
  ).rejects.toThrow(BackupRefused);
}, 60000);

it('backup --into ROOT --keep N from the CLI; bad flags are usage errors', async () => {
  const root = path.join(work, 'cli-root');
  const env = { ...cliEnv(org.t.config), ...backend.env };
  const run = await runCli(['backup', '--into', root, '--keep', '1', '--json'], env);
  expect(run.code).toBe(0);
  expect(run.json).toMatchObject({ previous: null, removed: [], uploads: { reused: 0 } });
  expect(run.json.uploads).not.toHaveProperty('files');
  expect((await runCli(['backup', '--into', root, '--keep', '0'], env)).code).toBe(2);
}, 180000);
