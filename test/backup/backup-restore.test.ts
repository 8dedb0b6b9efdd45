import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApiApp } from '../../apps/api/app';
import { loadConfig } from '../../libs/config/load-config';
import { createAppContext, type RunningContext } from '../../libs/runtime/create-app-context';
import { cliJson } from '../cli';
import { databaseUrl, dropDatabase, runId, TEST_DB_PREFIX, withAdminClient } from '../databases';
import type { TestUser } from '../factories';
import { type Organization, organization } from '../organization';
import { startUploadBackend, type RunningBackend } from '../upload-backends';

/**
 * `backup` then `restore` into a new database and a new upload store, run as an operator runs
 * them; an API on the restored copy serves the old messages and uploads to the old API keys.
 * The source keeps its uploads in S3 (a real S3-protocol server), the copy on local disk.
 */
const SECRET_KEY = 'backup-round-trip-secret-key-0123456789';

let org: Organization;
let alice: TestUser;
let source: RunningBackend;
let target: RunningBackend;
let restored: RunningContext | null = null;
const backupDir = path.join(mkdtempSync(path.join(tmpdir(), 'backup-test-')), 'backup');
const restoredDb = `${TEST_DB_PREFIX}${runId()}_restore_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  source = await startUploadBackend('s3');
  target = await startUploadBackend('local');
  org = await organization({
    env: { ...source.env, SECRET_KEY },
    members: { alice: { fullName: 'Alice Archivist' } },
    channels: { archive: ['alice'] },
  });
  ({ alice } = org.users);
});
afterAll(async () => {
  await restored?.close();
  await org.close();
  await withAdminClient((client) => dropDatabase(client, restoredDb));
  await source.close();
  await target.close();
  rmSync(path.dirname(backupDir), { recursive: true, force: true });
});

const cli = (env: Record<string, string>, ...args: string[]) =>
  cliJson(args, {
    REDIS_URL: org.t.config.redisUrl,
    REDIS_PREFIX: org.t.config.redisPrefix,
    SECRET_KEY,
    ...env,
  });

it('restores messages and uploads into a new database that the API then serves', async () => {
  const file = await org
    .as(alice)
    .post('/user_uploads')
    .attach('file', Buffer.from('kept for years'), {
      filename: 'minutes.txt',
      contentType: 'text/plain',
    });
  expect(file.status).toBe(200);
  const sent = await org.as(alice).post('/messages', {
    type: 'stream',
    to: 'archive',
    topic: 'minutes',
    content: `The minutes: [minutes.txt](${file.body.url})`,
  });
  expect(sent.status).toBe(200);

  const backup = await cli(
    { DATABASE_URL: org.t.config.databaseUrl, ...source.env },
    'backup',
    '--to',
    backupDir,
  );
  const manifest = JSON.parse(readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
  expect(backup).toMatchObject({ dir: backupDir, schema_version: manifest.schema_version });
  expect(manifest).toMatchObject({
    format: 'chat-server-backup',
    format_version: 2,
    feature_level: expect.any(Number),
    schema_version: expect.stringMatching(/^\d{14}_/),
    database: {
      file: 'database.dump',
      format: 'pg_dump custom',
      postgresql_major: expect.any(Number),
      pg_dump_major: expect.any(Number),
    },
    uploads: {
      dir: 'uploads',
      source: 's3',
      objects: 1,
      bytes: 14,
      reused: 0,
      missing: [],
      files: [
        {
          key: expect.stringMatching(/^files\/.+\/minutes\.txt$/),
          bytes: 14,
          sha256: expect.any(String),
        },
      ],
    },
  });
  // pg_dump's custom format starts with PGDMP.
  expect(readFileSync(path.join(backupDir, 'database.dump')).subarray(0, 5).toString()).toBe(
    'PGDMP',
  );

  // A second backup into the same directory is refused; so is another SECRET_KEY on restore.
  await expect(
    cli({ DATABASE_URL: org.t.config.databaseUrl, ...source.env }, 'backup', '--to', backupDir),
  ).rejects.toMatchObject({ stdout: expect.stringContaining('is not empty') });
  await expect(
    cli(
      {
        DATABASE_URL: databaseUrl(restoredDb),
        ...target.env,
        SECRET_KEY: 'another-secret-key-0123456789',
      },
      'restore',
      '--from',
      backupDir,
    ),
  ).rejects.toMatchObject({ code: 2, stdout: expect.stringContaining('SECRET_KEY differs') });

  const answer = await cli(
    { DATABASE_URL: databaseUrl(restoredDb), ...target.env },
    'restore',
    '--from',
    backupDir,
  );
  expect(answer).toMatchObject({
    database: restoredDb,
    schema_version: manifest.schema_version,
    migrations_applied: [],
    uploads: { store: 'local', objects: 1, bytes: 14, missing_at_backup: [] },
  });
  // Restoring over it again is refused: the database is no longer empty.
  await expect(
    cli({ DATABASE_URL: databaseUrl(restoredDb), ...target.env }, 'restore', '--from', backupDir),
  ).rejects.toMatchObject({ stdout: expect.stringContaining('is not empty') });

  restored = createAppContext(
    loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl(restoredDb),
      REDIS_URL: org.t.config.redisUrl,
      REDIS_PREFIX: `${org.t.config.redisPrefix}restored:`,
      EXTERNAL_HOST: org.t.config.externalHost,
      SECRET_KEY,
      LOG_LEVEL: 'error',
      ...target.env,
    }),
  );
  const app = createApiApp(restored);
  const messages = await request(app)
    .get('/api/v1/messages')
    .query({ anchor: 'newest', num_before: 10, num_after: 0, apply_markdown: 'false' })
    .set('Host', org.host)
    .set('Authorization', alice.auth);
  expect(messages.status).toBe(200);
  expect(messages.body.messages).toContainEqual(
    expect.objectContaining({
      id: sent.body.id,
      content: `The minutes: [minutes.txt](${file.body.url})`,
      subject: 'minutes',
    }),
  );
  const download = await request(app)
    .get(file.body.url as string)
    .set('Host', org.host)
    .set('Authorization', alice.auth);
  expect(download.status).toBe(200);
  expect(download.text).toBe('kept for years');
  const me = await request(app)
    .get('/api/v1/users/me')
    .set('Host', org.host)
    .set('Authorization', alice.auth);
  expect(me.body).toMatchObject({ user_id: alice.user.id, email: alice.email });
}, 300000);
