import { createHmac } from 'node:crypto';
import request from 'supertest';
import { type Organization, organization } from '../../../test/organization';
import type { TestUser } from '../../../test/factories';

/**
 * Issue 46: image previews without the camo proxy point at Zulip's `GET /thumbnail`, which now
 * exists: a redirect to the image once the reader may see it.
 */
let org: Organization<'alice' | 'bob'>;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  org = await organization({ members: { alice: 'member', bob: 'member' } });
  ({ alice, bob } = org.users);
});
afterAll(async () => {
  await org.close();
});

const thumbnail = (
  who: TestUser | null,
  query: string,
  target: Pick<Organization, 't' | 'host'> = org,
) => {
  let req = request(target.t.app).get(`/thumbnail?${query}`).set('Host', target.host);
  if (who) req = req.set('Authorization', who.auth);
  return req.redirects(0);
};

async function uploadAs(user: TestUser): Promise<string> {
  const res = await org
    .as(null)
    .post('/user_uploads')
    .set('Authorization', user.auth)
    .attach('file', Buffer.from('a picture'), { filename: 'cat.png', contentType: 'image/png' });
  expect(res.status).toBe(200);
  return res.body.url as string;
}

describe('GET /thumbnail', () => {
  it('is where a rendered external image points, and it redirects to the image', async () => {
    const image = 'https://images.example/cat.png';
    const res = await org.as(alice).post('/messages/render', { content: image });
    const src = /<img [^>]*src="([^"]+)"/.exec(res.body.rendered as string)?.[1];
    expect(src).toBe(`/thumbnail?url=${encodeURIComponent(image)}&amp;size=thumbnail`);
    const followed = await thumbnail(
      alice,
      (src ?? '').replace('/thumbnail?', '').replace('&amp;', '&'),
    );
    expect(followed.status).toBe(302);
    expect(followed.headers.location).toBe(image);
  });

  it('sends an upload only to readers who may see it', async () => {
    const url = await uploadAs(alice);
    const query = `url=${encodeURIComponent(url.slice(1))}&size=full`;
    const own = await thumbnail(alice, query);
    expect(own.status).toBe(302);
    expect(own.headers.location).toBe(url);
    const other = await thumbnail(bob, query);
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({
      result: 'error',
      msg: 'You are not authorized to view this file.',
    });
    const missing = await thumbnail(alice, 'url=user_uploads/1/zz/none.png&size=full');
    expect(missing.status).toBe(404);
  });

  it("sends the organization's own URLs to their path, never to another host", async () => {
    const own = await thumbnail(
      alice,
      `url=${encodeURIComponent(`http://${org.host}/static/images/logo.png`)}&size=full`,
    );
    expect(own.status).toBe(302);
    expect(own.headers.location).toBe('/static/images/logo.png');
  });

  it('goes through the camo proxy when it is on', async () => {
    const key = 'thumbnail-camo-key-012345';
    const camo = await organization({
      env: { CAMO_URI: '/external_content/', CAMO_KEY: key },
      members: { carol: 'member' },
    });
    try {
      const image = 'https://images.example/dog.png';
      const res = await thumbnail(
        camo.users.carol,
        `url=${encodeURIComponent(image)}&size=thumbnail`,
        camo,
      );
      const digest = createHmac('sha1', key).update(image).digest('hex');
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(
        `/external_content/${digest}/${Buffer.from(image).toString('hex')}`,
      );
    } finally {
      await camo.close();
    }
  });

  it('refuses strangers, missing arguments and URLs that are not web addresses', async () => {
    const anonymous = await thumbnail(null, 'url=https%3A%2F%2Fimages.example%2Fa.png&size=full');
    expect(anonymous.status).toBe(401);
    for (const [query, msg] of [
      ['size=full', "Missing 'url' argument"],
      ['url=https%3A%2F%2Fimages.example%2Fa.png', "Missing 'size' argument"],
      ['url=javascript%3Aalert(1)&size=full', 'Invalid URL'],
    ]) {
      const res = await thumbnail(alice, query);
      expect({ query, status: res.status, body: res.body }).toMatchObject({
        query,
        status: 400,
        body: { result: 'error', msg },
      });
    }
  });
});
