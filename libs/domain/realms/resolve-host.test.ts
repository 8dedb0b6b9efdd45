import request from 'supertest';
import { makeRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { subdomainOf } from './resolve-host';

let t: TestContext;

beforeAll(async () => {
  t = await startTestContext();
});
afterAll(() => t.close());

const me = (host: string, auth: string) =>
  request(t.app).get('/api/v1/users/me').set('Host', host).set('Authorization', auth);

describe('subdomainOf', () => {
  it.each([
    ['chat.test', ''],
    ['CHAT.test', ''],
    ['acme.chat.test', 'acme'],
    ['acme.chat.test:443', 'acme'],
    ['127.0.0.1:9991', null],
    ['other.example', null],
    [undefined, null],
  ])('%s -> %s', (host, expected) => {
    expect(subdomainOf(host, 'chat.test')).toBe(expected);
  });
});

describe('which organization a host reaches', () => {
  it('with one organization, any host reaches it (no DNS setup needed)', async () => {
    const only = await makeRealm(t, { stringId: 'solo' });
    for (const host of [
      '127.0.0.1:9991',
      'localhost',
      'chat.test',
      'solo.chat.test',
      'typo.chat.test',
    ]) {
      expect((await me(host, only.owner.auth)).status).toBe(200);
    }
  });

  it('with several, subdomains tell them apart and unknown hosts reach the root organization', async () => {
    const root = await makeRealm(t, { stringId: '' });
    const acme = await makeRealm(t, { stringId: 'acme' });
    expect((await me('acme.chat.test', acme.owner.auth)).status).toBe(200);
    expect((await me('127.0.0.1:9991', root.owner.auth)).status).toBe(200);
    expect((await me('chat.test', root.owner.auth)).status).toBe(200);
    const wrong = await me('127.0.0.1:9991', acme.owner.auth);
    expect(wrong.status).toBe(401);
    expect(wrong.body.msg).toBe('Account is not associated with this subdomain');
  });

  it('without a root organization, a host naming none of several is refused', async () => {
    await t.db.realm.deleteMany({ where: { stringId: '' } });
    const acme = await t.db.realm.findUniqueOrThrow({ where: { stringId: 'acme' } });
    expect(acme).toBeTruthy();
    const res = await request(t.app)
      .post('/api/v1/fetch_api_key')
      .set('Host', 'nowhere.example')
      .type('form')
      .send({ username: 'a@b.c', password: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NONEXISTENT_SUBDOMAIN');
  });
});
