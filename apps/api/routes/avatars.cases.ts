import request from 'supertest';
import sharp from 'sharp';
import { avatarKeys } from '../../../libs/domain/users/set-avatar';
import { uploadStore } from '../../../libs/storage/upload-store';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import {
  startUploadBackend,
  type RunningBackend,
  type UploadBackend,
} from '../../../test/upload-backends';

/**
 * Avatar cases, run against each upload store: avatars.test.ts on local disk, avatars-s3.test.ts
 * against a real S3-protocol server on loopback.
 */
export function avatarCases(kind: UploadBackend): void {
  let t: TestContext;
  let org: Organization;
  let alice: TestUser;
  let bob: TestUser;
  let backend: RunningBackend;

  beforeAll(async () => {
    backend = await startUploadBackend(kind);
    org = await organization({
      env: { ...backend.env, MAX_AVATAR_FILE_SIZE_MIB: '1' },
      members: { alice: { fullName: 'Alice Avatar' }, bob: { fullName: 'Bob Viewer' } },
    });
    ({ t } = org);
    ({ alice, bob } = org.users);
  });
  afterAll(async () => {
    await org.close();
    await backend.close();
  });

  /** A 300x200 JPEG, not square, so the stored images show they were cut and scaled. */
  const photo = () =>
    sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366cc' } })
      .jpeg()
      .toBuffer();

  const setAvatar = (user: TestUser, body: Buffer, name = 'me.jpg') =>
    org
      .as(null)
      .post('/users/me/avatar')
      .set('Authorization', user.auth)
      .attach('file', body, { filename: name, contentType: 'image/jpeg' });

  const fetchPublic = (url: string) => request(t.app).get(url).set('Host', org.host).buffer(true);

  it('stores square PNGs, serves them at the avatar URL and tells the organization', async () => {
    const mark = await outboxMark(t);
    const res = await setAvatar(alice, await photo());
    expect(res.status).toBe(200);
    const url = `/user_avatars/${org.realm.id}/${alice.user.id}.png?version=2`;
    expect(res.body).toEqual({ result: 'success', msg: '', avatar_url: url });

    const small = await fetchPublic(url);
    expect(small.status).toBe(200);
    expect(small.headers['content-type']).toBe('image/png');
    expect(await sharp(small.body as Buffer).metadata()).toMatchObject({
      format: 'png',
      width: 100,
      height: 100,
    });
    const medium = await fetchPublic(`/user_avatars/${org.realm.id}/${alice.user.id}-medium.png`);
    expect(await sharp(medium.body as Buffer).metadata()).toMatchObject({ width: 500 });
    const keys = avatarKeys(alice.user);
    expect(await uploadStore(t.config).exists(keys.small)).toBe(true);

    const seen = await org.as(bob).get(`/users/${alice.user.id}`);
    expect(seen.body.user).toMatchObject({ avatar_url: url, avatar_version: 2 });
    const events = await eventsAfter(t, mark);
    expect(events).toContainEqual({
      users: expect.arrayContaining([alice.user.id, bob.user.id]),
      event: {
        type: 'realm_user',
        op: 'update',
        person: {
          user_id: alice.user.id,
          avatar_source: 'U',
          avatar_url: url,
          avatar_url_medium: `/user_avatars/${org.realm.id}/${alice.user.id}-medium.png?version=2`,
          avatar_version: 2,
        },
      },
    });
  });

  it('answers a byte range and revalidates with the ETag', async () => {
    const url = `/user_avatars/${org.realm.id}/${alice.user.id}.png`;
    const whole = await fetchPublic(url);
    const part = await fetchPublic(url).set('Range', 'bytes=0-7');
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-7/${(whole.body as Buffer).length}`);
    expect(Buffer.compare(part.body as Buffer, (whole.body as Buffer).subarray(0, 8))).toBe(0);
    const again = await fetchPublic(url).set('If-None-Match', whole.headers.etag);
    expect(again.status).toBe(304);
  });

  it('refuses what is not one image within the limit, changing nothing', async () => {
    const before = await t.db.user.findUniqueOrThrow({ where: { id: bob.user.id } });
    const notImage = await setAvatar(bob, Buffer.from('not an image at all'), 'x.jpg');
    expect(notImage.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Could not decode image; did you upload an image file?',
    });
    const none = await org.as(bob).post('/users/me/avatar');
    expect(none.body.msg).toBe('You must upload exactly one avatar.');
    const big = await setAvatar(bob, Buffer.alloc(1024 * 1024 + 10, 1));
    expect(big.body.msg).toBe('Uploaded file is larger than the allowed limit of 1 MiB');
    const after = await t.db.user.findUniqueOrThrow({ where: { id: bob.user.id } });
    expect(after).toMatchObject({ avatarSource: 'G', avatarVersion: before.avatarVersion });
    expect(await uploadStore(t.config).exists(avatarKeys(bob.user).small)).toBe(false);
  });

  it('goes back to the Gravatar on DELETE and removes the stored images', async () => {
    const res = await org.as(alice).delete('/users/me/avatar');
    expect(res.body.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?/);
    expect(await uploadStore(t.config).exists(avatarKeys(alice.user).small)).toBe(false);
    expect((await fetchPublic(`/user_avatars/${org.realm.id}/${alice.user.id}.png`)).status).toBe(
      404,
    );
    // Only avatar and emoji names are served from the store: uploads stay behind their rules.
    expect((await fetchPublic(`/user_avatars/files/${org.realm.id}/x/y.txt`)).status).toBe(404);
  });

  it('obeys avatar_changes_disabled for members, not administrators', async () => {
    await t.db.realm.update({ where: { id: org.realm.id }, data: { avatarChangesDisabled: true } });
    const refused = await setAvatar(bob, await photo());
    expect(refused.body.msg).toBe('Avatar changes are disabled in this organization.');
    const owner = await setAvatar(org.owner, await photo());
    expect(owner.status).toBe(200);
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { avatarChangesDisabled: false },
    });
  });
}
