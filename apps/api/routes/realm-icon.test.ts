import request from 'supertest';
import sharp from 'sharp';
import { realmIconKey } from '../../../libs/domain/realms/set-realm-icon';
import { uploadStore } from '../../../libs/storage/upload-store';
import { type Organization, organization } from '../../../test/organization';
import { eventsAfter, ofType, outboxMark } from '../../../test/outbox';

/** `POST` and `DELETE /realm/icon`, as Zulip's organization settings use them. */
let org: Organization<'iago' | 'hamlet'>;

beforeAll(async () => {
  org = await organization({ members: { iago: 'administrator', hamlet: 'member' } });
});
afterAll(() => org.close());

const photo = () =>
  sharp({ create: { width: 300, height: 200, channels: 3, background: '#cc6633' } })
    .jpeg()
    .toBuffer();

const upload = (who: { auth: string }, body: Buffer, name = 'logo.jpg') =>
  org
    .as(null)
    .post('/realm/icon')
    .set('Authorization', who.auth)
    .attach('file', body, { filename: name, contentType: 'image/jpeg' });

const realm = () => org.t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });

describe('the organization icon', () => {
  it('an administrator uploads one: a 100 px square served at icon_url, told to everyone', async () => {
    const before = await realm();
    const mark = await outboxMark(org.t);
    const res = await upload(org.users.iago, await photo());
    expect(res.status).toBe(200);
    const url = `/user_avatars/${org.realm.id}/realm/icon.png?version=${before.iconVersion + 1}`;
    expect(res.body).toEqual({ result: 'success', msg: '', icon_url: url });

    const served = await request(org.t.app).get(url).set('Host', org.host).buffer(true);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(await sharp(served.body as Buffer).metadata()).toMatchObject({
      format: 'png',
      width: 100,
      height: 100,
    });

    const [event] = ofType(await eventsAfter(org.t, mark), 'realm', 'update_dict');
    expect(event.event).toEqual({
      type: 'realm',
      op: 'update_dict',
      property: 'default',
      data: { icon_source: 'U', icon_url: url },
    });
    expect(event.users).toEqual(
      expect.arrayContaining([org.owner.user.id, org.users.iago.user.id, org.users.hamlet.user.id]),
    );
    const registered = await org.register(org.users.hamlet, { fetch_event_types: '["realm"]' });
    expect(registered).toMatchObject({ realm_icon_url: url, realm_icon_source: 'U' });
  });

  it('refuses members, no image, two images and images over the limit, changing nothing', async () => {
    const before = await realm();
    const member = await upload(org.users.hamlet, await photo());
    expect(member.status).toBe(400);
    expect(member.body).toMatchObject({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Must be an organization administrator',
    });
    const none = await org.as(org.users.iago).post('/realm/icon');
    expect(none.body).toMatchObject({ result: 'error', msg: 'You must upload exactly one icon.' });
    const two = await org
      .as(org.users.iago)
      .post('/realm/icon')
      .attach('a', await photo(), 'a.jpg')
      .attach('b', await photo(), 'b.jpg');
    expect(two.body.msg).toBe('You must upload exactly one icon.');
    const big = await upload(org.users.iago, Buffer.alloc(5 * 1024 * 1024 + 10, 1));
    expect(big.body.msg).toBe('Uploaded file is larger than the allowed limit of 5 MiB');
    const notImage = await upload(org.users.iago, Buffer.from('not an image'), 'x.jpg');
    expect(notImage.body.msg).toBe('Could not decode image; did you upload an image file?');
    const memberDelete = await org.as(org.users.hamlet).delete('/realm/icon');
    expect(memberDelete.status).toBe(400);
    expect(await realm()).toMatchObject({
      iconSource: before.iconSource,
      iconVersion: before.iconVersion,
    });
  });

  it('DELETE goes back to the generated icon and removes the stored image', async () => {
    const before = await realm();
    const res = await org.as(org.users.iago).delete('/realm/icon');
    expect(res.status).toBe(200);
    expect(res.body.icon_url).toMatch(
      new RegExp(
        `^https://secure\\.gravatar\\.com/avatar/[0-9a-f]{32}\\?d=identicon&version=${before.iconVersion + 1}$`,
      ),
    );
    expect(await realm()).toMatchObject({ iconSource: 'G', iconVersion: before.iconVersion + 1 });
    expect(await uploadStore(org.t.config).exists(realmIconKey(org.realm))).toBe(false);
    const gone = await request(org.t.app)
      .get(`/user_avatars/${org.realm.id}/realm/icon.png`)
      .set('Host', org.host);
    expect(gone.status).toBe(404);
  });
});
