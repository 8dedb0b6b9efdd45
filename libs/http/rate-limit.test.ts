import { makeUser } from '../../test/factories';
import type { TestContext } from '../../test/harness';
import { type Organization, organization } from '../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({
    env: { RATE_LIMIT_API_REQUESTS: '3', RATE_LIMIT_AUTH_ATTEMPTS: '2' },
    realm: { ownerPassword: 'right-password' },
  });
  ({ t } = org);
});
afterAll(() => org.close());

describe('rate limits', () => {
  it('answers 429 RATE_LIMIT_HIT with retry-after once a user exceeds the limit', async () => {
    const member = await makeUser(t, org.realm);
    const me = () => org.as(member).get('/users/me');
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
    const res = await org.as(other).get('/users/me');
    expect(res.status).toBe(200);
  });

  it('locks password login for a username after repeated failures, even with the right password', async () => {
    const attempt = (password: string) =>
      org.as(null).post('/fetch_api_key', { username: org.owner.email, password });
    expect((await attempt('wrong-1')).status).toBe(401);
    expect((await attempt('wrong-2')).status).toBe(401);
    const locked = await attempt('right-password');
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('RATE_LIMIT_HIT');
  });
});
