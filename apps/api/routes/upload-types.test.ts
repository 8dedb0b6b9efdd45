import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { makeRealm, type TestRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';

/**
 * Issue 14: the `zulip` Python client (requests) sends upload parts without a Content-Type. Such
 * a file gets the type its name suggests, as in Zulip, instead of text/plain.
 */
let t: TestContext;
let org: TestRealm;
const uploads = mkdtempSync(path.join(tmpdir(), 'upload-types-test-'));
// A 1x1 transparent PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  t = await startTestContext({ UPLOADS_DIR: uploads });
  org = await makeRealm(t);
});
afterAll(async () => {
  await t.close();
  rmSync(uploads, { recursive: true, force: true });
});

/** A multipart body with one file part, with the part's Content-Type header only when given. */
function multipart(fileName: string, body: Buffer, partType?: string) {
  const boundary = 'pythonrequestsboundary1234';
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
    (partType ? `Content-Type: ${partType}\r\n` : '') +
    '\r\n';
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.concat([Buffer.from(head), body, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}

const post = (url: string, form: { type: string; body: Buffer }) =>
  request(t.app)
    .post(url)
    .set('Host', org.host)
    .set('Authorization', org.owner.auth)
    .set('Content-Type', form.type)
    .send(form.body);

describe('uploads whose part names no type', () => {
  it('POST /user_uploads stores a PNG as image/png, and serves it so', async () => {
    for (const [name, partType] of [
      ['pixel.png', undefined],
      ['stated.png', 'application/octet-stream'],
    ] as const) {
      const res = await post('/api/v1/user_uploads', multipart(name, PNG, partType));
      expect(res.body).toMatchObject({ result: 'success' });
      const served = await request(t.app)
        .get(res.body.url as string)
        .set('Host', org.host)
        .set('Authorization', org.owner.auth);
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['content-disposition']).toMatch(/^inline;/);
      expect(Buffer.from(served.body as Buffer)).toEqual(PNG);
    }
  });

  it('a type the part states is kept', async () => {
    const res = await post('/api/v1/user_uploads', multipart('data.png', PNG, 'image/gif'));
    const row = await t.db.attachment.findFirstOrThrow({
      where: { pathId: (res.body.url as string).slice('/user_uploads/'.length) },
    });
    expect(row.contentType).toBe('image/gif');
  });

  it('POST /realm/emoji/{name} accepts a PNG without a part type', async () => {
    const res = await post('/api/v1/realm/emoji/untyped_pixel', multipart('pixel.png', PNG));
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const emoji = await t.db.realmEmoji.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'untyped_pixel' },
    });
    expect(emoji.fileName).toMatch(/\.png$/);
    // The name only suggests the type: the bytes must be that image.
    const fake = await post('/api/v1/realm/emoji/fake', multipart('fake.png', Buffer.from('hi')));
    expect(fake.body).toEqual({
      result: 'error',
      msg: 'Invalid image format',
      code: 'BAD_REQUEST',
    });
  });
});
