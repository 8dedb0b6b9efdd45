import request from 'supertest';
import { loadConfig } from '../../libs/config/load-config';
import type { AppContext } from '../../libs/core/context';
import { LocalUploadStore } from '../../libs/storage/local-store';
import { cliEnv, cliJson, runCli } from '../../test/cli';
import { PNG_PIXEL } from '../../test/upload-bodies';
import { type Organization, organization } from '../../test/organization';
import type { TestUser } from '../../test/factories';
import { startS3Server, startUploadBackend, type RunningBackend } from '../../test/upload-backends';
import { createApiApp } from '../api/app';

/**
 * `move-uploads-to-s3`: files uploaded to local disk are served, under the same URLs, by an API
 * configured for the bucket afterwards.
 */

let org: Organization;
let alice: TestUser;
let local: RunningBackend;
let s3: Awaited<ReturnType<typeof startS3Server>>;

beforeAll(async () => {
  local = await startUploadBackend('local');
  s3 = await startS3Server();
  org = await organization({ env: local.env, members: { alice: { fullName: 'Alice Mover' } } });
  ({ alice } = org.users);
});
afterAll(async () => {
  await org.close();
  await s3.close();
  await local.close();
});

it('moves uploads, avatars and emoji to S3, where the API then finds them', async () => {
  const { t } = org;
  const file = await org
    .as(alice)
    .post('/user_uploads')
    .attach('file', Buffer.from('moved bytes'), {
      filename: 'moved.txt',
      contentType: 'text/plain',
    });
  expect(file.status).toBe(200);
  const emoji = await org
    .as(org.owner)
    .post('/realm/emoji/moved')
    .attach('file', PNG_PIXEL, { filename: 'moved.png', contentType: 'image/png' });
  expect(emoji.status).toBe(200);
  const row = await t.db.realmEmoji.findFirstOrThrow({ where: { name: 'moved' } });

  const report = await cliJson(['move-uploads-to-s3', '--delete-local'], {
    ...cliEnv(t.config),
    ...local.env,
    ...s3.env,
  });
  expect(report).toMatchObject({ bucket: 'chat-uploads', copied: 2, removed_locally: 2 });
  const left = [];
  for await (const object of new LocalUploadStore(local.env.UPLOADS_DIR).list()) left.push(object);
  expect(left).toEqual([]);

  // The same database, now with the bucket configured.
  const config = loadConfig({ ...process.env, ...local.env, ...s3.env });
  const onS3: AppContext = Object.create(t, {
    config: { value: { ...t.config, s3: config.s3 } },
  }) as AppContext;
  const app = createApiApp(onS3);
  const direct = await request(app)
    .get(file.body.url as string)
    .set('Host', org.host)
    .set('Authorization', alice.auth)
    .buffer(true);
  expect(direct.status).toBe(200);
  expect(direct.text).toBe('moved bytes');
  const image = await request(app)
    .get(`/user_avatars/${org.realm.id}/emoji/images/${row.fileName}`)
    .buffer(true);
  expect(Buffer.compare(image.body as Buffer, PNG_PIXEL)).toBe(0);
  // Served from the bucket alone: the local copies are gone.
  expect(
    (
      await request(t.app)
        .get(file.body.url as string)
        .set('Host', org.host)
        .set('Authorization', alice.auth)
    ).status,
  ).toBe(404);
}, 60000);

it('refuses without a bucket', async () => {
  const failed = await runCli(['move-uploads-to-s3', '--json'], {
    ...cliEnv(org.t.config),
    S3_BUCKET: '',
  });
  expect(failed.code).toBe(2);
  expect(failed.stdout).toContain('S3_BUCKET is not set');
}, 30000);
