import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { freePort } from '../../../test/free-port';
import { makeRealm, makeUser, type TestRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { desktopAppSignIn, openInDesktopApp } from '../../../test/auth/desktop-app';
import { RedirectAgent, startOidcPeer, type OidcPeer } from '../../../test/auth/oidc-peer';

/**
 * Sign-in through OpenID Connect against a real `oidc-provider` on loopback: discovery, the
 * authorization code flow with PKCE, state and nonce, the ID token checked against the JWKS,
 * Zulip's mobile flow, and the organization's rules.
 */
let t: TestContext;
let org: TestRealm;
let peer: OidcPeer;
let server: Server;
let api: string;

beforeAll(async () => {
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  peer = await startOidcPeer([
    { client_id: 'chat', client_secret: 'chat-secret', redirect_uris: [`${api}/complete/oidc/`] },
    { client_id: 'chat2', client_secret: 'chat2-secret', redirect_uris: [`${api}/complete/oidc/`] },
  ]);
  t = await startTestContext({
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    SOCIAL_AUTH_OIDC_ENABLED_IDPS: JSON.stringify({
      keycloak: {
        oidc_url: peer.issuer,
        display_name: 'Keycloak',
        display_icon: '/static/images/keycloak.png',
        client_id: 'chat',
        secret: 'chat-secret',
      },
      open: {
        oidc_url: peer.issuer,
        display_name: 'Open sign-up',
        client_id: 'chat2',
        secret: 'chat2-secret',
        auto_signup: true,
      },
    }),
  });
  org = await makeRealm(t, { stringId: '', name: 'Acme' });
  server = t.app.listen(port, '127.0.0.1');
}, 60000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await peer.close();
  await t.close();
});

/** Until the sign-in leaves the provider and our callback: the mobile app's or the landing URL. */
const landed = (location: string) =>
  location.startsWith('zulip:') ||
  (location.startsWith(api) && !/\/(complete|accounts\/login|accounts\/register)\//.test(location));

async function signIn(path: string, agent = new RedirectAgent()) {
  const run = await agent.follow(`${api}${path}`, landed);
  return { ...run, agent, landing: run.hops[run.hops.length - 1] };
}

const usersMe = (agent: RedirectAgent) => agent.get(`${api}/json/users/me`);

describe('server_settings', () => {
  it('lists each provider with its name, icon and URLs', async () => {
    const res = await fetch(`${api}/api/v1/server_settings`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.authentication_methods).toMatchObject({ 'openid connect': true, password: true });
    expect(body.external_authentication_methods).toEqual([
      {
        name: 'oidc:keycloak',
        display_name: 'Keycloak',
        display_icon: '/static/images/keycloak.png',
        login_url: '/accounts/login/social/oidc/keycloak',
        signup_url: '/accounts/register/social/oidc/keycloak',
      },
      {
        name: 'oidc:open',
        display_name: 'Open sign-up',
        display_icon: null,
        login_url: '/accounts/login/social/oidc/open',
        signup_url: '/accounts/register/social/oidc/open',
      },
    ]);
  });
});

describe('signing in', () => {
  it('signs an existing account in with a browser session and lands on `next`', async () => {
    await peer.signInAs({
      sub: 'owner',
      email: org.owner.email,
      email_verified: true,
      name: 'Olivia',
    });
    const { res, landing, agent, hops } = await signIn(
      '/accounts/login/social/oidc/keycloak?next=/%23narrow/channel/1',
    );
    expect(hops.some((hop) => hop.startsWith(`${peer.issuer}/auth?`))).toBe(true);
    const authorize = new URL(hops.find((hop) => hop.startsWith(`${peer.issuer}/auth?`))!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(res.status).toBe(302);
    expect(landing).toBe(`${api}/#narrow/channel/1`);
    const me = await usersMe(agent);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user_id: number }).user_id).toBe(org.owner.user.id);
  });

  it("ends Zulip's mobile flow in the zulip:// redirect with the key under the one-time pad", async () => {
    await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
    const otp = randomBytes(32).toString('hex');
    const { landing, agent } = await signIn(
      `/accounts/login/social/oidc/keycloak?mobile_flow_otp=${otp}`,
    );
    const redirect = new URL(landing);
    expect(`${redirect.protocol}//${redirect.host}`).toBe('zulip://login');
    expect([...redirect.searchParams.keys()]).toEqual([
      'otp_encrypted_api_key',
      'email',
      'user_id',
      'realm',
    ]);
    const encrypted = redirect.searchParams.get('otp_encrypted_api_key')!;
    const hexKey = [...encrypted]
      .map((digit, i) => (parseInt(digit, 16) ^ parseInt(otp[i], 16)).toString(16))
      .join('');
    expect(Buffer.from(hexKey, 'hex').toString('ascii')).toBe(org.owner.apiKey);
    expect(redirect.searchParams.get('email')).toBe(org.owner.email);
    expect(redirect.searchParams.get('user_id')).toBe(String(org.owner.user.id));
    expect(redirect.searchParams.get('realm')).toBe(api);
    expect((await usersMe(agent)).status).toBe(401);
  });

  it('refuses a malformed one-time pad before leaving for the provider', async () => {
    const res = await new RedirectAgent().get(
      `${api}/accounts/login/social/oidc/keycloak?mobile_flow_otp=1234`,
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Invalid OTP');
  });
});

describe("Zulip's desktop flow", () => {
  it('ends in the token page; the token, once, gives the app its session', async () => {
    await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
    const otp = randomBytes(32).toString('hex');
    const { res, agent } = await signIn(
      `/accounts/login/social/oidc/keycloak?desktop_flow_otp=${otp}&next=/%23inbox`,
    );
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Copy this login token');
    // The browser that did the sign-in gets no session: the app does.
    expect((await usersMe(agent)).status).toBe(401);
    const { token, login, me, again } = await desktopAppSignIn(api, page, otp);
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe('/#inbox');
    expect(((await me.json()) as { user_id: number }).user_id).toBe(org.owner.user.id);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('expired or was already used');
  });

  it('refuses a malformed pad, both pads at once, and a made-up token', async () => {
    const otp = randomBytes(32).toString('hex');
    const bad = await new RedirectAgent().get(
      `${api}/accounts/login/social/oidc/keycloak?desktop_flow_otp=xyz`,
    );
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Invalid OTP');
    const both = await new RedirectAgent().get(
      `${api}/accounts/login/social/oidc/keycloak?desktop_flow_otp=${otp}&mobile_flow_otp=${otp}`,
    );
    expect(both.status).toBe(400);
    expect(await both.text()).toContain('use both mobile_flow_otp and desktop_flow_otp');
    const agent = new RedirectAgent();
    const madeUp = await agent.get(`${api}/accounts/login/subdomain/${'A'.repeat(32)}`);
    expect(madeUp.status).toBe(400);
    expect((await usersMe(agent)).status).toBe(401);
  });

  it('inside the desktop app, sends the sign-in to the browser', async () => {
    const res = await openInDesktopApp(`${api}/accounts/login/social/oidc/keycloak`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Sign in with your browser');
    const script = /<script src="([^"]+)"/.exec(page)![1];
    const js = await fetch(`${api}${script}`);
    expect(js.status).toBe(200);
    expect(await js.text()).toContain('desktop_flow_otp');
  });
});

describe('refusals', () => {
  const userCount = () => t.db.user.count({ where: { realmId: org.realm.id } });

  it('an unverified email signs nobody in and creates nothing', async () => {
    const before = await userCount();
    await peer.signInAs({
      sub: 'unverified',
      email: org.owner.email,
      email_verified: false,
    });
    const { res, agent } = await signIn('/accounts/login/social/oidc/keycloak');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('not verified');
    expect((await usersMe(agent)).status).toBe(401);
    const fresh = await signIn('/accounts/register/social/oidc/open');
    expect(fresh.res.status).toBe(401);
    expect(await userCount()).toBe(before);
  });

  it('a first sign-in creates an account only where the provider and organization allow', async () => {
    const before = await userCount();
    await peer.signInAs({ sub: 'newbie', email: 'newbie@example.com', email_verified: true });
    const closed = await signIn('/accounts/login/social/oidc/keycloak');
    expect(closed.res.status).toBe(401);
    expect(await closed.res.text()).toContain('no account');
    // Invitation-only (the default) refuses even where the provider allows sign-up.
    const invited = await signIn('/accounts/register/social/oidc/open');
    expect(invited.res.status).toBe(401);
    expect(await invited.res.text()).toContain('invitation');
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { inviteRequired: false, emailsRestrictedToDomains: true },
    });
    await t.db.realmDomain.create({
      data: { realmId: org.realm.id, domain: 'acme.example', allowSubdomains: false },
    });
    const outside = await signIn('/accounts/register/social/oidc/open');
    expect(outside.res.status).toBe(401);
    expect(await outside.res.text()).toContain('not allowed');
    expect(await userCount()).toBe(before);
    await peer.signInAs({
      sub: 'insider',
      email: 'insider@acme.example',
      email_verified: true,
      name: 'Ines Insider',
    });
    const joined = await signIn('/accounts/register/social/oidc/open');
    expect(joined.res.status).toBe(302);
    const created = await t.db.user.findFirstOrThrow({
      where: { realmId: org.realm.id, deliveryEmail: 'insider@acme.example' },
    });
    expect(created.fullName).toBe('Ines Insider');
    expect((await usersMe(joined.agent)).status).toBe(200);
  });

  it('a deactivated user is refused', async () => {
    const gone = await makeUser(t, org.realm, { email: 'gone@acme.example' });
    await t.db.user.update({ where: { id: gone.user.id }, data: { isActive: false } });
    await peer.signInAs({ sub: 'gone', email: 'gone@acme.example', email_verified: true });
    const { res, agent } = await signIn('/accounts/login/social/oidc/keycloak');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('deactivated');
    expect((await usersMe(agent)).status).toBe(401);
  });

  it('a callback from another browser (state mismatch) or a replayed one is refused', async () => {
    await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
    const victim = new RedirectAgent();
    const stopAtCallback = (location: string) => location.startsWith(`${api}/complete/oidc/`);
    const run = await victim.follow(`${api}/accounts/login/social/oidc/keycloak`, stopAtCallback);
    const callback = run.hops[run.hops.length - 1];
    const attacker = new RedirectAgent();
    const forged = await attacker.get(callback);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('state mismatch');
    expect((await usersMe(attacker)).status).toBe(401);

    const saved = new Map(victim.cookies(new URL(api).host));
    const first = await victim.get(callback);
    expect(first.status).toBe(302);
    const replay = new RedirectAgent();
    for (const [name, value] of saved) replay.cookies(new URL(api).host).set(name, value);
    const again = await replay.get(callback);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('expired or was already used');
    expect((await usersMe(replay)).status).toBe(401);
  });

  it.each(['forged', 'expired', 'audience', 'nonce'] as const)(
    'an ID token %s is refused and leaves no session',
    async (mode) => {
      await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
      await peer.tamperNext(mode);
      const { res, agent } = await signIn('/accounts/login/social/oidc/keycloak');
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('could not be verified');
      expect((await usersMe(agent)).status).toBe(401);
    },
  );

  it('a `next` on another host is refused (no open redirect)', async () => {
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const res = await new RedirectAgent().get(
        `${api}/accounts/login/social/oidc/keycloak?next=${encodeURIComponent(next)}`,
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it("the organization's authentication_methods turns the method off", async () => {
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { authenticationMethods: { 'OpenID Connect': false } },
    });
    const settings = (await (await fetch(`${api}/api/v1/server_settings`)).json()) as Record<
      string,
      unknown
    >;
    expect(settings.external_authentication_methods).toEqual([]);
    expect(settings.authentication_methods).toMatchObject({ 'openid connect': false });
    const res = await new RedirectAgent().get(`${api}/accounts/login/social/oidc/keycloak`);
    expect(res.status).toBe(404);
    await t.db.realm.update({ where: { id: org.realm.id }, data: { authenticationMethods: {} } });
  });
});
