import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { freePort } from '../../../test/free-port';
import { makeRealm, makeUser, type TestRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { desktopAppSignIn, openInDesktopApp } from '../../../test/auth/desktop-app';
import { RedirectAgent } from '../../../test/auth/oidc-peer';
import { startSamlIdp, toSamlAcs, type SamlIdp } from '../../../test/auth/saml-idp';

/**
 * SAML 2.0 sign-in against samlify's IdP mode on loopback, which signs its responses with
 * XML-DSig: SP metadata, the AuthnRequest by redirect, the signed response POSTed to the ACS,
 * Zulip's mobile and desktop flows, and every way a response may be bad.
 */
jest.setTimeout(60_000);

let t: TestContext;
let org: TestRealm;
let idp: SamlIdp;
let server: Server;
let api: string;

beforeAll(async () => {
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  idp = await startSamlIdp({ spOrigin: api });
  const entry = {
    ...idp.entry,
    attr_email: 'email',
    attr_first_name: 'first_name',
    attr_last_name: 'last_name',
  };
  t = await startTestContext({
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    SOCIAL_AUTH_SAML_SP_ENTITY_ID: 'https://chat.acme.example',
    SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({
      okta: { ...entry, display_name: 'Okta', display_icon: '/static/images/okta.png' },
      open: { ...entry, display_name: 'Open sign-up', auto_signup: true },
    }),
  });
  org = await makeRealm(t, { stringId: '', name: 'Acme' });
  server = t.app.listen(port, '127.0.0.1');
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await idp?.close();
  await t?.close();
});

/** To the IdP and back with its form: the ACS POST not yet sent. */
async function toAcs(path: string, agent = new RedirectAgent()) {
  const { start, location, page, form } = await toSamlAcs(agent, `${api}${path}`);
  expect(start.status).toBe(302);
  expect(location.startsWith(`${idp.ssoUrl}?`)).toBe(true);
  expect(page.status).toBe(200);
  return { agent, location, form };
}

async function signIn(path: string) {
  const { agent, form, location } = await toAcs(path);
  const res = await agent.post(form.action, form.fields);
  return { agent, res, form, location };
}

const usersMe = (agent: RedirectAgent) => agent.get(`${api}/json/users/me`);
const userCount = () => t.db.user.count({ where: { realmId: org.realm.id } });

describe('discovery', () => {
  it('server_settings lists each IdP under Zulip’s names and URLs', async () => {
    const body = (await (await fetch(`${api}/api/v1/server_settings`)).json()) as Record<
      string,
      unknown
    >;
    expect(body.authentication_methods).toMatchObject({ saml: true });
    expect(body.external_authentication_methods).toEqual([
      {
        name: 'saml:okta',
        display_name: 'Okta',
        display_icon: '/static/images/okta.png',
        login_url: '/accounts/login/social/saml/okta',
        signup_url: '/accounts/register/social/saml/okta',
      },
      {
        name: 'saml:open',
        display_name: 'Open sign-up',
        display_icon: null,
        login_url: '/accounts/login/social/saml/open',
        signup_url: '/accounts/register/social/saml/open',
      },
    ]);
  });

  it('publishes SP metadata with the entity ID and the ACS at Zulip’s paths', async () => {
    const res = await fetch(`${api}/saml/metadata.xml`);
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(xml).toContain('entityID="https://chat.acme.example"');
    expect(xml).toContain(`Location="${api}/complete/saml/"`);
  });
});

describe('signing in', () => {
  it('signs an existing account in and lands on `next`', async () => {
    idp.signInAs({ email: org.owner.email, firstName: 'Olivia', lastName: 'Owner' });
    const { res, agent, location } = await signIn(
      '/accounts/login/social/saml/okta?next=/%23inbox',
    );
    const request = new URL(location);
    expect(request.searchParams.get('SAMLRequest')).toBeTruthy();
    expect(request.searchParams.get('RelayState')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/#inbox');
    const me = await usersMe(agent);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user_id: number }).user_id).toBe(org.owner.user.id);
  });

  it("ends Zulip's mobile flow in the zulip:// redirect", async () => {
    idp.signInAs({ email: org.owner.email });
    const otp = randomBytes(32).toString('hex');
    const { res, agent } = await signIn(`/accounts/login/social/saml/okta?mobile_flow_otp=${otp}`);
    const redirect = new URL(res.headers.get('location')!);
    expect(`${redirect.protocol}//${redirect.host}`).toBe('zulip://login');
    const encrypted = redirect.searchParams.get('otp_encrypted_api_key')!;
    const hexKey = [...encrypted]
      .map((digit, i) => (parseInt(digit, 16) ^ parseInt(otp[i], 16)).toString(16))
      .join('');
    expect(Buffer.from(hexKey, 'hex').toString('ascii')).toBe(org.owner.apiKey);
    expect(redirect.searchParams.get('user_id')).toBe(String(org.owner.user.id));
    expect((await usersMe(agent)).status).toBe(401);
  });

  it("ends Zulip's desktop flow in the token page; the token gives the app its session", async () => {
    idp.signInAs({ email: org.owner.email });
    const otp = randomBytes(32).toString('hex');
    const { res, agent } = await signIn(
      `/accounts/login/social/saml/okta?desktop_flow_otp=${otp}&next=/%23inbox`,
    );
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Copy this login token');
    // The browser that did the sign-in gets no session: the app does.
    expect((await usersMe(agent)).status).toBe(401);
    const { login, me, again } = await desktopAppSignIn(api, page, otp);
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe('/#inbox');
    expect(((await me.json()) as { user_id: number }).user_id).toBe(org.owner.user.id);
    expect(again.status).toBe(400);
  });

  it('inside the desktop app, sends the SAML sign-in to the system browser', async () => {
    const res = await openInDesktopApp(`${api}/accounts/login/social/saml/okta?next=/%23inbox`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Sign in with your browser');
    expect(page).toContain('/static/js/desktop-login.js');
    expect(res.headers.get('location')).toBeNull();
  });

  it('creates an account from the mapped attributes only where allowed', async () => {
    await t.db.realm.update({ where: { id: org.realm.id }, data: { inviteRequired: false } });
    idp.signInAs({ email: 'new.person@acme.example', firstName: 'New', lastName: 'Person' });
    const closed = await signIn('/accounts/login/social/saml/okta');
    expect(closed.res.status).toBe(401);
    expect(await closed.res.text()).toContain('no account');
    const open = await signIn('/accounts/register/social/saml/open');
    expect(open.res.status).toBe(302);
    const created = await t.db.user.findFirstOrThrow({
      where: { realmId: org.realm.id, deliveryEmail: 'new.person@acme.example' },
    });
    expect(created.fullName).toBe('New Person');
    await t.db.realm.update({ where: { id: org.realm.id }, data: { inviteRequired: true } });
  });

  it('refuses a deactivated user', async () => {
    const gone = await makeUser(t, org.realm, { email: 'gone@acme.example' });
    await t.db.user.update({ where: { id: gone.user.id }, data: { isActive: false } });
    idp.signInAs({ email: 'gone@acme.example' });
    const { res, agent } = await signIn('/accounts/login/social/saml/okta');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('deactivated');
    expect((await usersMe(agent)).status).toBe(401);
  });
});

describe('bad responses', () => {
  // Open to sign-up: a response that got through would leave an account behind.
  beforeAll(() =>
    t.db.realm.update({ where: { id: org.realm.id }, data: { inviteRequired: false } }),
  );
  afterAll(() =>
    t.db.realm.update({ where: { id: org.realm.id }, data: { inviteRequired: true } }),
  );

  it.each([
    ['forged', 'its signature is not valid'],
    ['altered', 'its signature is not valid'],
    ['expired', 'it has expired'],
    ['audience', 'it is meant for another service'],
    ['inResponseTo', 'it answers no sign-in started here'],
  ] as const)('a response %s is refused and leaves nothing behind', async (mode, message) => {
    const before = await userCount();
    idp.signInAs({ email: `tamper-${mode.toLowerCase()}@acme.example` });
    idp.tamperNext(mode);
    const { res, agent } = await signIn('/accounts/register/social/saml/open');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain(message);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('sessionid='))).toBe(false);
    expect((await usersMe(agent)).status).toBe(401);
    expect(await userCount()).toBe(before);
  });

  it('a replayed response is refused, as is, or under a new sign-in’s RelayState', async () => {
    idp.signInAs({ email: org.owner.email });
    const first = await signIn('/accounts/login/social/saml/okta');
    expect(first.res.status).toBe(302);

    const replay = new RedirectAgent();
    const again = await replay.post(first.form.action, first.form.fields);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('expired or was already used');

    // An attacker's own sign-in, carrying the captured response instead of the IdP's answer.
    const attacker = await toAcs('/accounts/login/social/saml/okta');
    const smuggled = await attacker.agent.post(attacker.form.action, {
      SAMLResponse: first.form.fields.SAMLResponse,
      RelayState: attacker.form.fields.RelayState,
    });
    expect(smuggled.status).toBe(401);
    expect(await smuggled.text()).toContain('it answers no sign-in started here');
    expect((await usersMe(replay)).status).toBe(401);
    expect((await usersMe(attacker.agent)).status).toBe(401);
  });

  it('a `next` on another host is refused before the IdP (no open redirect)', async () => {
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const res = await new RedirectAgent().get(
        `${api}/accounts/login/social/saml/okta?next=${encodeURIComponent(next)}`,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('a POST with no response or an unknown RelayState is refused', async () => {
    const empty = await new RedirectAgent().post(`${api}/complete/saml/`, { RelayState: 'x' });
    expect(empty.status).toBe(400);
    const unknown = await new RedirectAgent().post(`${api}/complete/saml/`, {
      SAMLResponse: Buffer.from('<samlp:Response/>').toString('base64'),
      RelayState: 'A'.repeat(32),
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('expired or was already used');
  });

  it("the organization's authentication_methods turns SAML off", async () => {
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { authenticationMethods: { SAML: false } },
    });
    const body = (await (await fetch(`${api}/api/v1/server_settings`)).json()) as Record<
      string,
      unknown
    >;
    expect(body.external_authentication_methods).toEqual([]);
    expect(body.authentication_methods).toMatchObject({ saml: false });
    const res = await new RedirectAgent().get(`${api}/accounts/login/social/saml/okta`);
    expect(res.status).toBe(404);
    await t.db.realm.update({ where: { id: org.realm.id }, data: { authenticationMethods: {} } });
  });
});
