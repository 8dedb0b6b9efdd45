import request from 'supertest';
import { makeRealm, makeUser } from '../../../test/factories';
import { basicAuth, type TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({ realm: { ownerPassword: 'correct horse battery' } });
  ({ t } = org);
});
afterAll(() => org.close());

const fetchKey = (form: Record<string, string>, host = org.host) =>
  request(t.app).post('/api/v1/fetch_api_key').set('Host', host).type('form').send(form);

describe('POST /fetch_api_key', () => {
  it('returns the same API key the account already has', async () => {
    const res = await fetchKey({ username: org.owner.email, password: 'correct horse battery' });
    expect(res.status).toBe(200);
    expectOpenApiResponse('/fetch_api_key', 'post', res.body);
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      api_key: org.owner.apiKey,
      email: org.owner.email,
      user_id: org.owner.user.id,
    });
    const me = await org.as({ auth: basicAuth(res.body.email, res.body.api_key) }).get('/users/me');
    expect(me.status).toBe(200);
  });

  it('refuses a wrong password and an unknown user alike', async () => {
    for (const form of [
      { username: org.owner.email, password: 'wrong' },
      { username: 'nobody@example.com', password: 'correct horse battery' },
    ]) {
      const res = await fetchKey(form);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        result: 'error',
        msg: 'Your username or password is incorrect',
        code: 'AUTHENTICATION_FAILED',
      });
    }
  });

  it('refuses a user without a password', async () => {
    const member = await makeUser(t, org.realm);
    const res = await fetchKey({ username: member.email, password: '' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('AUTHENTICATION_FAILED');
  });

  it('names a missing argument', async () => {
    const res = await fetchKey({ username: org.owner.email });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: "Missing 'password' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'password',
    });
  });

  it('refuses a deactivated user', async () => {
    const member = await makeUser(t, org.realm, { password: 'pw-123456' });
    await t.db.user.update({ where: { id: member.user.id }, data: { isActive: false } });
    const res = await fetchKey({ username: member.email, password: 'pw-123456' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('USER_DEACTIVATED');
  });

  it('refuses a deactivated organization', async () => {
    const other = await makeRealm(t, { ownerPassword: 'pw-abcdefg' });
    await t.db.realm.update({ where: { id: other.realm.id }, data: { deactivated: true } });
    const res = await fetchKey({ username: other.owner.email, password: 'pw-abcdefg' }, other.host);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('REALM_DEACTIVATED');
  });

  it('accepts JSON request bodies too', async () => {
    const res = await request(t.app)
      .post('/api/v1/fetch_api_key')
      .set('Host', org.host)
      .send({ username: org.owner.email, password: 'correct horse battery' });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toBe(org.owner.apiKey);
  });

  it('answers malformed JSON with BAD_REQUEST, not a 500', async () => {
    const res = await request(t.app)
      .post('/api/v1/fetch_api_key')
      .set('Host', org.host)
      .set('Content-Type', 'application/json')
      .send('{"username": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ result: 'error', msg: 'Malformed JSON', code: 'BAD_REQUEST' });
  });
});
