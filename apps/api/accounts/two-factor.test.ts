import { authenticator } from 'otplib';
import request from 'supertest';
import { makeRealm, type TestRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';

/**
 * TOTP two-factor authentication (TWO_FACTOR_AUTHENTICATION_ENABLED): enrolment from the web
 * client's session with a QR code, sign-in asking for the code, a code good once, backup codes
 * good once, `fetch_api_key` as Zulip answers it, and turning it off.
 */
let t: TestContext;
let org: TestRealm;
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  t = await startTestContext({ TWO_FACTOR_AUTHENTICATION_ENABLED: 'true' });
  org = await makeRealm(t, { stringId: 'acme', ownerPassword: PASSWORD });
});
afterAll(() => t.close());

/** The code an authenticator app shows `steps` 30-second steps from now. */
const codeAt = (secret: string, steps: number) =>
  authenticator.clone({ epoch: Date.now() + steps * 30_000 }).generate(secret);

const cookieOf = (res: request.Response, name: string) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]
    .split('=')[1];

async function login(fields: Record<string, string>) {
  const browser = request.agent(t.app);
  const page = await browser.get('/').set('Host', org.host);
  const csrf = cookieOf(page, 'csrftoken')!;
  const res = await browser
    .post('/json/login')
    .set('Host', org.host)
    .set('X-CSRFToken', csrf)
    .type('form')
    .send({ username: org.owner.email, password: PASSWORD, ...fields });
  return { browser, res, csrf: cookieOf(res, 'csrftoken') ?? csrf };
}

const json = (
  session: Awaited<ReturnType<typeof login>>,
  method: 'get' | 'post',
  path: string,
  body: Record<string, string> = {},
) =>
  session.browser[method](`/json${path}`)
    .set('Host', org.host)
    .set('X-CSRFToken', session.csrf)
    .type('form')
    .send(body);

/** The fields of the answers the tests read. */
interface Body {
  secret: string;
  qr_code: string;
  otpauth_url: string;
  backup_codes: string[];
  msg: string;
  user_id: number;
  api_key: string;
}
const b = (res: request.Response) => res.body as Body;

let secret = '';
let backupCodes: string[] = [];

it('enrols from the web session: QR code, a first code, backup codes', async () => {
  const session = await login({});
  expect(session.res.status).toBe(200);
  expect((await json(session, 'get', '/two_factor')).body).toMatchObject({
    available: true,
    enabled: false,
  });
  const setup = await json(session, 'post', '/two_factor/setup');
  expect(setup.status).toBe(200);
  secret = b(setup).secret;
  expect(b(setup).qr_code).toMatch(/^data:image\/png;base64,/);
  const url = new URL(b(setup).otpauth_url);
  expect(url.protocol).toBe('otpauth:');
  expect(url.searchParams.get('secret')).toBe(secret);

  const wrong = await json(session, 'post', '/two_factor/confirm', { otp: '000000' });
  expect(wrong.status).toBe(400);
  expect(await t.db.userTwoFactor.count({ where: { userId: org.owner.user.id } })).toBe(0);

  const confirmed = await json(session, 'post', '/two_factor/confirm', {
    otp: codeAt(secret, 0),
  });
  expect(confirmed.status).toBe(200);
  backupCodes = b(confirmed).backup_codes;
  expect(backupCodes).toHaveLength(10);
  const row = await t.db.userTwoFactor.findUniqueOrThrow({ where: { userId: org.owner.user.id } });
  expect(row.secretCiphertext).not.toContain(secret);
  expect(row.backupCodeHashes).toHaveLength(10);
  expect(row.backupCodeHashes.some((hash) => backupCodes.includes(hash))).toBe(false);
  expect((await json(session, 'get', '/two_factor')).body).toMatchObject({
    enabled: true,
    backup_codes_left: 10,
  });
});

it('asks for the code after the password, refuses a wrong one, takes a right one once', async () => {
  const bare = await login({});
  expect(bare.res.status).toBe(401);
  expect(bare.res.body).toMatchObject({ result: 'error', code: 'TWO_FACTOR_REQUIRED' });
  expect(cookieOf(bare.res, 'sessionid')).toBeUndefined();
  expect((await json(bare, 'get', '/users/me')).status).toBe(401);

  // A real code of the secret, but of five minutes from now: outside the accepted drift.
  const wrong = await login({ otp: codeAt(secret, 10) });
  expect(wrong.res.status).toBe(401);
  expect(b(wrong.res).msg).toContain('not valid');
  expect(cookieOf(wrong.res, 'sessionid')).toBeUndefined();

  const code = codeAt(secret, 1);
  const right = await login({ otp: code });
  expect(right.res.status).toBe(200);
  expect(b(await json(right, 'get', '/users/me')).user_id).toBe(org.owner.user.id);

  const replayed = await login({ otp: code });
  expect(replayed.res.status).toBe(401);
  expect(cookieOf(replayed.res, 'sessionid')).toBeUndefined();
});

it('a backup code signs in once', async () => {
  const first = await login({ otp: backupCodes[0] });
  expect(first.res.status).toBe(200);
  const again = await login({ otp: backupCodes[0] });
  expect(again.res.status).toBe(401);
  const row = await t.db.userTwoFactor.findUniqueOrThrow({ where: { userId: org.owner.user.id } });
  expect(row.backupCodeHashes).toHaveLength(9);
});

it('fetch_api_key answers as Zulip does: the password alone gives the key', async () => {
  const res = await request(t.app)
    .post('/api/v1/fetch_api_key')
    .set('Host', org.host)
    .type('form')
    .send({ username: org.owner.email, password: PASSWORD });
  expect(res.status).toBe(200);
  expect(b(res).api_key).toBe(org.owner.apiKey);
});

it('turns off only with a valid code, then the password alone signs in', async () => {
  const session = await login({ otp: backupCodes[1] });
  expect(session.res.status).toBe(200);
  const refused = await json(session, 'post', '/two_factor/disable', { otp: backupCodes[0] });
  expect(refused.status).toBe(400);
  expect(await t.db.userTwoFactor.count({ where: { userId: org.owner.user.id } })).toBe(1);
  const off = await json(session, 'post', '/two_factor/disable', { otp: backupCodes[2] });
  expect(off.status).toBe(200);
  expect(await t.db.userTwoFactor.count({ where: { userId: org.owner.user.id } })).toBe(0);
  expect((await login({})).res.status).toBe(200);
});
