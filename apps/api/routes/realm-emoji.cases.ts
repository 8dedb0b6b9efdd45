import request from 'supertest';
import { makeUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { multipartFile, PNG_PIXEL } from '../../../test/upload-bodies';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { Role } from '../../../libs/domain/users/roles';
import { type Organization, organization } from '../../../test/organization';
import {
  startUploadBackend,
  type RunningBackend,
  type UploadBackend,
} from '../../../test/upload-backends';
import { emojiImageKey } from '../../../libs/domain/emoji/upload-realm-emoji';
import { uploadStore } from '../../../libs/storage/upload-store';

/**
 * Custom emoji cases, run against each upload store: realm-emoji.test.ts on local disk,
 * realm-emoji-s3.test.ts against a real S3-protocol server on loopback.
 */
export function realmEmojiCases(kind: UploadBackend): void {
  let t: TestContext;
  let org: Organization;
  let backend: RunningBackend;

  beforeAll(async () => {
    backend = await startUploadBackend(kind);
    org = await organization({ env: backend.env });
    ({ t } = org);
  });
  afterAll(async () => {
    await org.close();
    await backend.close();
  });

  const upload = (
    name: string,
    auth: string,
    files: Buffer[] = [PNG_PIXEL],
    type = 'image/png',
  ) => {
    let req = org.as({ auth: auth }).post(`/realm/emoji/${name}`);
    files.forEach((buf, i) => {
      req = req.attach(`file${i}`, buf, { filename: `e${i}.png`, contentType: type });
    });
    return req;
  };

  describe('custom emoji', () => {
    it('uploads to the store, serves, lists and deactivates with realm_emoji events', async () => {
      const mark = await outboxMark(t);
      const res = await upload('party_parrot', org.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: 'success', msg: '' });
      const row = await t.db.realmEmoji.findFirstOrThrow({
        where: { realmId: org.realm.id, name: 'party_parrot' },
      });
      expect(await uploadStore(t.config).exists(emojiImageKey(org.realm.id, row.fileName!))).toBe(
        true,
      );
      // Served without credentials, as clients load emoji in <img> tags.
      const image = await request(t.app)
        .get(`/user_avatars/${org.realm.id}/emoji/images/${row.fileName}`)
        .buffer(true);
      expect(image.status).toBe(200);
      expect(image.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(image.body as Buffer, PNG_PIXEL)).toBe(0);

      const listed = await org.as(org.owner).get('/realm/emoji');
      expectOpenApiResponse('/realm/emoji', 'get', listed.body);
      expect(listed.body.emoji[String(row.id)]).toEqual({
        id: String(row.id),
        name: 'party_parrot',
        source_url: `/user_avatars/${org.realm.id}/emoji/images/${row.fileName}`,
        // Zulip's record always has it; null for an emoji that is not animated.
        still_url: null,
        deactivated: false,
        author_id: org.owner.user.id,
      });
      const dup = await upload('party_parrot', org.owner.auth);
      expect(dup.body).toMatchObject({
        code: 'BAD_REQUEST',
        msg: 'A custom emoji with this name already exists.',
      });

      const del = await org.as(org.owner).delete('/realm/emoji/party_parrot');
      expect(del.status).toBe(200);
      const after = await org.as(org.owner).get('/realm/emoji');
      expect(after.body.emoji[String(row.id)].deactivated).toBe(true);
      const again = await org.as(org.owner).delete('/realm/emoji/party_parrot');
      expect(again.body).toMatchObject({
        code: 'BAD_REQUEST',
        msg: "Emoji 'party_parrot' does not exist",
      });
      const events = await eventsAfter(t, mark);
      expect(events.map((e) => e.event.type)).toEqual(['realm_emoji', 'realm_emoji']);
      expect(events[1].event).toMatchObject({ op: 'update' });
    });

    it('lets members add emoji but not guests, and only authors or admins remove them', async () => {
      const member = await makeUser(t, org.realm);
      const other = await makeUser(t, org.realm);
      const guest = await makeUser(t, org.realm, { role: Role.GUEST });
      expect((await upload('member_emoji', member.auth)).status).toBe(200);
      const guestRes = await upload('guest_emoji', guest.auth);
      expect(guestRes.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Insufficient permission',
      });
      const byOther = await org.as(other).delete('/realm/emoji/member_emoji');
      expect(byOther.body.msg).toBe('Must be an organization administrator or emoji author');
      const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
      expect((await org.as(admin).delete('/realm/emoji/member_emoji')).status).toBe(200);
    });

    it('accepts a PNG whose upload part names no type (issue 14), but only an image', async () => {
      const post = (name: string, form: { type: string; body: Buffer }) =>
        request(t.app)
          .post(`/api/v1/realm/emoji/${name}`)
          .set('Host', org.host)
          .set('Authorization', org.owner.auth)
          .set('Content-Type', form.type)
          .send(form.body);
      const res = await post('untyped_pixel', multipartFile('pixel.png', PNG_PIXEL));
      expect(res.body).toEqual({ result: 'success', msg: '' });
      const emoji = await t.db.realmEmoji.findFirstOrThrow({
        where: { realmId: org.realm.id, name: 'untyped_pixel' },
      });
      expect(emoji.fileName).toMatch(/\.png$/);
      // The name only suggests the type: the bytes must be that image.
      const fake = await post('fake', multipartFile('fake.png', Buffer.from('hi')));
      expect(fake.body).toEqual({
        result: 'error',
        msg: 'Invalid image format',
        code: 'BAD_REQUEST',
      });
    });

    it('validates names and files', async () => {
      const bad = async (req: request.Test, msg: string) => {
        const res = await req;
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg });
      };
      await bad(upload('Bad%20Name', org.owner.auth), 'Invalid characters in emoji name');
      await bad(
        upload('trailing_', org.owner.auth),
        'Emoji names must end with either a letter or digit.',
      );
      await bad(
        upload('two', org.owner.auth, [PNG_PIXEL, PNG_PIXEL]),
        'You must upload exactly one file.',
      );
      await bad(upload('none', org.owner.auth, []), 'You must upload exactly one file.');
      await bad(
        upload('text', org.owner.auth, [Buffer.from('hi')], 'text/plain'),
        'Invalid image format',
      );
      await bad(
        upload('huge', org.owner.auth, [Buffer.alloc(5 * 1024 * 1024 + 1)]),
        'Uploaded file is larger than the allowed limit of 5 MiB',
      );
    });
  });
}
