import request from 'supertest';
import { type Organization, organization } from '../../test/organization';

/** The web client's browser session: cookies, CSRF, sign-in and sign-out on `/json/`. */
let org: Organization;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  org = await organization({
    env: { RATE_LIMIT_AUTH_ATTEMPTS: '3' },
    realm: { ownerPassword: PASSWORD },
  });
});
afterAll(() => org.close());

const agent = () => request.agent(org.t.app);
const cookieOf = (res: request.Response, name: string) =>
  ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const valueOf = (setCookie: string | undefined) => setCookie?.split(';')[0].split('=')[1] ?? '';

async function signedIn() {
  const browser = agent();
  const page = await browser.get('/').set('Host', org.host);
  const csrf = valueOf(cookieOf(page, 'csrftoken'));
  const login = await browser
    .post('/json/login')
    .set('Host', org.host)
    .set('X-CSRFToken', csrf)
    .type('form')
    .send({ username: org.owner.email, password: PASSWORD });
  expect(login.status).toBe(200);
  return { browser, login, csrf: valueOf(cookieOf(login, 'csrftoken')) };
}

describe('the web client page', () => {
  it('is served at / under a CSP that allows no inline script', async () => {
    const res = await agent().get('/').set('Host', org.host);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(cookieOf(res, 'csrftoken')).toMatch(/SameSite=Lax/);
  });
});

describe('POST /json/login', () => {
  it('sets an HttpOnly SameSite=Lax session cookie and never answers with the API key', async () => {
    const { login } = await signedIn();
    expect(login.body).toEqual({
      result: 'success',
      msg: '',
      user_id: org.owner.user.id,
      email: org.owner.email,
    });
    expect(JSON.stringify(login.body)).not.toContain(org.owner.apiKey);
    const session = cookieOf(login, 'sessionid')!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).not.toMatch(/Secure/);
    expect(cookieOf(login, 'csrftoken')).not.toMatch(/HttpOnly/);
  });

  it('refuses a sign-in without the page’s CSRF token', async () => {
    const res = await agent()
      .post('/json/login')
      .set('Host', org.host)
      .type('form')
      .send({ username: org.owner.email, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ result: 'error', code: 'CSRF_FAILED' });
    expect(cookieOf(res, 'sessionid')).toBeUndefined();
  });

  it('is rate-limited like fetch_api_key', async () => {
    const browser = agent();
    const page = await browser.get('/').set('Host', org.host);
    const csrf = valueOf(cookieOf(page, 'csrftoken'));
    const attempt = (password: string) =>
      browser
        .post('/json/login')
        .set('Host', org.host)
        .set('X-CSRFToken', csrf)
        .type('form')
        .send({ username: 'victim@example.com', password });
    for (let i = 0; i < 3; i++) expect((await attempt('wrong')).status).toBe(401);
    const limited = await attempt('wrong');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMIT_HIT');
  });
});

describe('/json/ with a session', () => {
  it('answers reads with the session alone', async () => {
    const { browser } = await signedIn();
    const me = await browser.get('/json/users/me').set('Host', org.host);
    expect(me.status).toBe(200);
    expect(me.body.user_id).toBe(org.owner.user.id);
  });

  it('refuses a change without the CSRF token, or with a wrong one, and changes nothing', async () => {
    const { browser, csrf } = await signedIn();
    const send = (token?: string) => {
      const req = browser.post('/json/messages').set('Host', org.host);
      if (token !== undefined) req.set('X-CSRFToken', token);
      return req.type('form').send({ type: 'stream', to: 'general', topic: 't', content: 'hi' });
    };
    for (const token of [undefined, 'x'.repeat(csrf.length)]) {
      const res = await send(token);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CSRF_FAILED');
    }
    expect(await org.t.db.message.count({ where: { content: 'hi' } })).toBe(0);
    const ok = await send(csrf);
    expect(ok.status).toBe(200);
  });

  it('refuses a request with no session', async () => {
    const res = await agent().get('/json/users/me').set('Host', org.host);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('ends at logout', async () => {
    const { browser, csrf } = await signedIn();
    const out = await browser.post('/json/logout').set('Host', org.host).set('X-CSRFToken', csrf);
    expect(out.status).toBe(200);
    const me = await browser.get('/json/users/me').set('Host', org.host);
    expect(me.status).toBe(401);
  });
});

describe('the web client behind https', () => {
  it('marks its cookies Secure, and never challenges /json/ with Basic', async () => {
    const secure = await organization({
      env: { EXTERNAL_SCHEME: 'https' },
      realm: { ownerPassword: PASSWORD },
    });
    try {
      const browser = request.agent(secure.t.app);
      const page = await browser.get('/').set('Host', secure.host);
      expect(cookieOf(page, 'csrftoken')).toMatch(/Secure/);
      const csrf = valueOf(cookieOf(page, 'csrftoken'));
      // supertest, like a browser, keeps Secure cookies off plain http: sent by hand.
      const login = await browser
        .post('/json/login')
        .set('Host', secure.host)
        .set('Cookie', `csrftoken=${csrf}`)
        .set('X-CSRFToken', csrf)
        .type('form')
        .send({ username: secure.owner.email, password: PASSWORD });
      expect(cookieOf(login, 'sessionid')).toMatch(/Secure/);
      const anonymous = await request(secure.t.app).post('/json/register').set('Host', secure.host);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Session realm="zulip"');
    } finally {
      await secure.close();
    }
  });
});
