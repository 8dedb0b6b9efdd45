import request from 'supertest';
import { makeRealm, makeUser, type TestRealm } from '../../test/factories';
import { startTestContext, type TestContext } from '../../test/harness';

let t: TestContext;
let org: TestRealm;

beforeAll(async () => {
  t = await startTestContext({ RATE_LIMIT_API_REQUESTS: '3', RATE_LIMIT_AUTH_ATTEMPTS: '2' });
  org = await makeRealm(t, { ownerPassword: 'right-password' });
});
afterAll(() => t.close());

describe('rate limits', () => {
  it('answers 429 RATE_LIMIT_HIT with retry-after once a user exceeds the limit', async () => {
    const member = await makeUser(t, org.realm);
    const me = () =>
      request(t.app)
        .get('/api/v1/users/me')
        .set('Host', org.host)
        .set('Authorization', member.auth);
    for (let i = 0; i < 3; i++) {
      const ok = await me();
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await me();
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      result: 'error',
      code: 'RATE_LIMIT_HIT',
      msg: 'API usage exceeded rate limit',
    });
    expect(limited.body['retry-after']).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another user has a budget of their own.
    const other = await makeUser(t, org.realm);
    const res = await request(t.app)
      .get('/api/v1/users/me')
      .set('Host', org.host)
      .set('Authorization', other.auth);
    expect(res.status).toBe(200);
  });

  it('locks password login for a username after repeated failures, even with the right password', async () => {
    const attempt = (password: string) =>
      request(t.app)
        .post('/api/v1/fetch_api_key')
        .set('Host', org.host)
        .type('form')
        .send({ username: org.owner.email, password });
    expect((await attempt('wrong-1')).status).toBe(401);
    expect((await attempt('wrong-2')).status).toBe(401);
    const locked = await attempt('right-password');
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('RATE_LIMIT_HIT');
  });
});
