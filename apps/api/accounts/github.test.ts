import type { Server } from 'node:http';
import { freePort } from '../../../test/free-port';
import { makeRealm, makeUser, type TestRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { RedirectAgent } from '../../../test/auth/oidc-peer';
import { startGithubPeer, type GithubPeer } from '../../../test/auth/github-peer';

/**
 * "Log in with GitHub" (OAuth 2) against a loopback server that speaks GitHub's OAuth web flow
 * and REST API as GitHub documents them (test/auth/github-peer.ts): state, PKCE, verified
 * addresses from /user/emails only, the organization requirement, the organization's rules.
 */
interface Running {
  t: TestContext;
  org: TestRealm;
  api: string;
  server: Server;
}

let peer: GithubPeer;
let open: Running;
let restricted: Running;

async function start(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const t = await startTestContext({
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    SOCIAL_AUTH_GITHUB_KEY: 'gh-client',
    SOCIAL_AUTH_GITHUB_SECRET: 'gh-secret',
    SOCIAL_AUTH_GITHUB_URL: peer.url,
    SOCIAL_AUTH_GITHUB_API_URL: peer.apiUrl,
    ...env,
  });
  const org = await makeRealm(t, { stringId: '', name: 'Acme' });
  const server = t.app.listen(port, '127.0.0.1');
  return { t, org, api: `http://127.0.0.1:${port}`, server };
}

beforeAll(async () => {
  peer = await startGithubPeer({ id: 'gh-client', secret: 'gh-secret' });
  open = await start({});
  restricted = await start({ SOCIAL_AUTH_GITHUB_ORG_NAME: 'acme-inc' });
}, 60000);
afterAll(async () => {
  for (const run of [open, restricted]) {
    await new Promise((resolve) => run.server.close(resolve));
    await run.t.close();
  }
  await peer.close();
});

async function signIn(run: Running, path: string, agent = new RedirectAgent()) {
  const landed = (location: string) =>
    location.startsWith(run.api) &&
    !/\/(complete|accounts\/login|accounts\/register)\//.test(location);
  const result = await agent.follow(`${run.api}${path}`, landed);
  return { ...result, agent, landing: result.hops[result.hops.length - 1] };
}

const usersMe = async (run: Running, agent: RedirectAgent) => {
  const res = await agent.get(`${run.api}/json/users/me`);
  return {
    status: res.status,
    body: res.status === 200 ? ((await res.json()) as { user_id: number }) : null,
  };
};

it('server_settings lists GitHub under Zulip’s name and URLs', async () => {
  const body = (await (await fetch(`${open.api}/api/v1/server_settings`)).json()) as Record<
    string,
    unknown
  >;
  expect(body.authentication_methods).toMatchObject({ github: true, google: false });
  expect(body.external_authentication_methods).toEqual([
    {
      name: 'github',
      display_name: 'GitHub',
      display_icon: null,
      login_url: '/accounts/login/social/github',
      signup_url: '/accounts/register/social/github',
    },
  ]);
});

it('signs an account in by its verified primary address, with state and PKCE', async () => {
  peer.signInAs({
    login: 'olivia',
    emails: [{ email: open.org.owner.email, primary: true, verified: true }],
  });
  const { res, landing, agent } = await signIn(
    open,
    '/accounts/login/social/github?next=/%23inbox',
  );
  expect(res.status).toBe(302);
  expect(landing).toBe(`${open.api}/#inbox`);
  const authorize = peer.authorizations[peer.authorizations.length - 1];
  expect(authorize.searchParams.get('scope')).toBe('user:email');
  expect(authorize.searchParams.get('state')).toBeTruthy();
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('redirect_uri')).toBe(`${open.api}/complete/github/`);
  expect((await usersMe(open, agent)).body?.user_id).toBe(open.org.owner.user.id);
});

it('takes the verified secondary address that has an account, never an unverified one', async () => {
  const member = await makeUser(open.t, open.org.realm, { email: 'second@acme.example' });
  peer.signInAs({
    login: 'sam',
    emails: [
      { email: 'sam@elsewhere.example', primary: true, verified: true },
      { email: open.org.owner.email, verified: false },
      { email: 'second@acme.example', verified: true },
    ],
  });
  const { agent } = await signIn(open, '/accounts/login/social/github');
  expect((await usersMe(open, agent)).body?.user_id).toBe(member.user.id);
});

it('refuses an account with no verified address and leaves nothing behind', async () => {
  const before = await open.t.db.user.count();
  for (const emails of [
    [{ email: open.org.owner.email, primary: true, verified: false }],
    [{ email: '1234+olivia@users.noreply.github.com', primary: true, verified: true }],
  ]) {
    peer.signInAs({ login: 'olivia', emails });
    const { res, agent } = await signIn(open, '/accounts/register/social/github');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('not verified');
    expect((await usersMe(open, agent)).status).toBe(401);
  }
  expect(await open.t.db.user.count()).toBe(before);
});

it('refuses a code GitHub will not redeem, another host in next, a callback from elsewhere', async () => {
  peer.signInAs({
    login: 'olivia',
    emails: [{ email: open.org.owner.email, primary: true, verified: true }],
  });
  peer.refuseNextCode();
  const refused = await signIn(open, '/accounts/login/social/github');
  expect(refused.res.status).toBe(401);
  expect(await refused.res.text()).toContain('could not be verified');
  expect((await usersMe(open, refused.agent)).status).toBe(401);

  const away = await new RedirectAgent().get(
    `${open.api}/accounts/login/social/github?next=${encodeURIComponent('//evil.example/')}`,
  );
  expect(away.status).toBe(400);
  expect(away.headers.get('location')).toBeNull();

  const victim = new RedirectAgent();
  const run = await victim.follow(`${open.api}/accounts/login/social/github`, (location) =>
    location.startsWith(`${open.api}/complete/github/`),
  );
  const attacker = new RedirectAgent();
  const forged = await attacker.get(run.hops[run.hops.length - 1]);
  expect(forged.status).toBe(400);
  expect(await forged.text()).toContain('state mismatch');
  expect((await usersMe(open, attacker)).status).toBe(401);
});

it('creates no account unless sign-up is allowed for GitHub', async () => {
  await open.t.db.realm.update({
    where: { id: open.org.realm.id },
    data: { inviteRequired: false },
  });
  peer.signInAs({
    login: 'newbie',
    emails: [{ email: 'newbie@acme.example', primary: true, verified: true }],
  });
  const { res } = await signIn(open, '/accounts/register/social/github');
  expect(res.status).toBe(401);
  expect(await res.text()).toContain('no account');
  expect(await open.t.db.user.count({ where: { deliveryEmail: 'newbie@acme.example' } })).toBe(0);
});

it('with SOCIAL_AUTH_GITHUB_ORG_NAME, only members of the organization sign in', async () => {
  const account = {
    login: 'olivia',
    emails: [{ email: restricted.org.owner.email, primary: true, verified: true }],
  };
  peer.signInAs(account);
  const outsider = await signIn(restricted, '/accounts/login/social/github');
  expect(outsider.res.status).toBe(401);
  expect(await outsider.res.text()).toContain('not a member of the GitHub organization');
  expect((await usersMe(restricted, outsider.agent)).status).toBe(401);
  const authorize = peer.authorizations[peer.authorizations.length - 1];
  expect(authorize.searchParams.get('scope')).toBe('user:email read:org');

  peer.signInAs({ ...account, orgs: ['acme-inc'] });
  const member = await signIn(restricted, '/accounts/login/social/github');
  expect(member.res.status).toBe(302);
  expect((await usersMe(restricted, member.agent)).body?.user_id).toBe(
    restricted.org.owner.user.id,
  );
});

it("the organization's authentication_methods turns GitHub off", async () => {
  await open.t.db.realm.update({
    where: { id: open.org.realm.id },
    data: { authenticationMethods: { GitHub: false } },
  });
  const body = (await (await fetch(`${open.api}/api/v1/server_settings`)).json()) as Record<
    string,
    unknown
  >;
  expect(body.external_authentication_methods).toEqual([]);
  expect(body.authentication_methods).toMatchObject({ github: false });
  const res = await new RedirectAgent().get(`${open.api}/accounts/login/social/github`);
  expect(res.status).toBe(404);
  await open.t.db.realm.update({
    where: { id: open.org.realm.id },
    data: { authenticationMethods: {} },
  });
});
