/**
 * Sign-in server time per method (not a test): `npx tsx bench/auth-sign-in.ts`.
 *
 * Starts one `api` process, a real `oidc-provider` and the loopback GitHub (test/auth/github-peer)
 * on loopback, then signs the same person in BENCH_SIGN_INS times (default 60; the first 10 warm
 * up) by each method and prints p50 / p99 of the server's answers:
 * - password: `POST /json/login` (bcrypt at the production cost, 10 rounds);
 * - password_totp: the same for an account with two-factor on, the code with the password;
 * - oidc, github: the start (`/accounts/login/social/...`) plus the callback (`/complete/...`).
 *   The callback includes its round trips to the provider's token endpoint (and GitHub's API, and
 *   for OIDC, the first time, discovery and JWKS), so the figure is an upper bound of the
 *   server's own time; the provider's login pages between the two are not counted;
 * - desktop: OIDC with `desktop_flow_otp` plus the app's `/accounts/login/subdomain/<token>`;
 * - scim_create, scim_deactivate: SCIM `POST /scim/v2/Users` and `PATCH` `active: false`;
 * - ldap: `POST /json/login` with a uid, against Debian's slapd on loopback (test/auth/slapd):
 *   StartTLS, the search as a service account and the bind as the user, all counted;
 * - saml: the start plus the ACS POST of the response samlify's IdP signed (test/auth/saml-idp);
 *   the IdP's page between the two is not counted.
 *
 * BENCH_METHODS=saml,ldap runs only those (e.g. to profile one: BENCH_NODE_ARGS=--cpu-prof).
 */
import { randomBytes } from 'node:crypto';
import { makeRealm, makeUser } from '../test/factories';
import { freePort } from '../test/free-port';
import { desktopLoginToken } from '../test/auth/desktop-app';
import { startGithubPeer } from '../test/auth/github-peer';
import { RedirectAgent, startOidcPeer } from '../test/auth/oidc-peer';
import { startSamlIdp, toSamlAcs } from '../test/auth/saml-idp';
import { ldapPerson, startSlapd } from '../test/auth/slapd';
import { startTier } from '../test/multiprocess/processes';
import { currentTotp, encryptTotpSecret, newTotpSecret } from '../libs/domain/auth/totp';
import { issueScimToken } from '../libs/domain/scim/scim-clients';
import { percentile, round, withScratchWorld, type BenchContext } from './scratch-world';

const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 60);
const WARM_UP = 10;
const PASSWORD = 'a long bench password';
const LDAP_PERSON = {
  ...ldapPerson('bench', 'Bench', 'Person', 'ldap.example'),
  password: PASSWORD,
};

const stats = (times: number[]) => {
  const sorted = times.slice(WARM_UP).sort((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)) };
};

/** Times one request of ours. */
async function timed<T>(request: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const started = performance.now();
  const res = await request();
  return { res, ms: performance.now() - started };
}

/** Our two legs of a redirect sign-in, timed; the provider's pages between them are not. */
async function redirectSignIn(api: string, path: string, callbackPath: string) {
  const agent = new RedirectAgent();
  const start = await timed(() => agent.get(`${api}${path}`));
  const atCallback = await agent.follow(start.res.headers.get('location')!, (location) =>
    location.startsWith(`${api}${callbackPath}`),
  );
  const done = await timed(() => agent.get(atCallback.hops[atCallback.hops.length - 1]));
  if (done.res.status >= 400) throw new Error(`${path}: ${done.res.status}`);
  return { done: done.res, ms: start.ms + done.ms };
}

type Peers = {
  oidc: Awaited<ReturnType<typeof startOidcPeer>>;
  github: Awaited<ReturnType<typeof startGithubPeer>>;
  slapd: Awaited<ReturnType<typeof startSlapd>>;
  saml: Awaited<ReturnType<typeof startSamlIdp>>;
};

function serverSettings(port: number, peers: Peers): Record<string, string> {
  return {
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    BCRYPT_ROUNDS: '10',
    RATE_LIMIT_AUTH_ATTEMPTS: '100000',
    TWO_FACTOR_AUTHENTICATION_ENABLED: 'true',
    SOCIAL_AUTH_OIDC_ENABLED_IDPS: JSON.stringify({
      keycloak: {
        oidc_url: peers.oidc.issuer,
        display_name: 'Keycloak',
        client_id: 'chat',
        secret: 'chat-secret',
      },
    }),
    SOCIAL_AUTH_GITHUB_KEY: 'gh-client',
    SOCIAL_AUTH_GITHUB_SECRET: 'gh-secret',
    SOCIAL_AUTH_GITHUB_URL: peers.github.url,
    SOCIAL_AUTH_GITHUB_API_URL: peers.github.apiUrl,
    ...peers.slapd.startTlsSettings,
    // LDAP_APPEND_DOMAIN: the other methods' addresses (example.com) never reach the directory.
    LDAP_APPEND_DOMAIN: 'ldap.example',
    SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({
      okta: { ...peers.saml.entry, display_name: 'Okta' },
    }),
  };
}

type Step = (i: number) => Promise<number>;

/** `POST /json/login` as the web client sends it (CSRF cookie and header), timed. */
async function passwordLogin(api: string, fields: Record<string, string>): Promise<number> {
  const page = await fetch(`${api}/accounts/password/reset/`);
  const csrf = /csrftoken=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')![1];
  const login = await timed(() =>
    fetch(`${api}/json/login`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-CSRFToken': csrf,
        Cookie: `csrftoken=${csrf}`,
      },
      body: new URLSearchParams({ password: PASSWORD, ...fields }),
    }),
  );
  if (login.res.status !== 200) throw new Error(`password sign-in: ${login.res.status}`);
  return login.ms;
}

/** One SCIM request with the organization's token, timed. */
async function scim(api: string, token: string, method: string, path: string, body: unknown) {
  const { res, ms } = await timed(() =>
    fetch(`${api}/scim/v2${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/scim+json' },
      body: JSON.stringify(body),
    }),
  );
  if (res.status >= 300) throw new Error(`SCIM ${method} ${path}: ${res.status}`);
  return { ms, id: ((await res.json()) as { id: string }).id };
}

/** The organization: its owner known to every provider, an account with TOTP, a SCIM token. */
async function prepare(ctx: BenchContext, secretKey: string, peers: Peers) {
  const org = await makeRealm(ctx, { stringId: '', ownerPassword: PASSWORD });
  await peers.oidc.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
  peers.github.signInAs({
    login: 'owner',
    emails: [{ email: org.owner.email, primary: true, verified: true }],
  });
  peers.saml.signInAs({ email: org.owner.email });
  await makeUser(ctx, org.realm, { email: LDAP_PERSON.mail });
  const guarded = await makeUser(ctx, org.realm, { password: PASSWORD });
  const totpSecret = newTotpSecret();
  await ctx.db.userTwoFactor.create({
    data: {
      userId: guarded.user.id,
      secretCiphertext: encryptTotpSecret(totpSecret, secretKey),
      backupCodeHashes: [],
    },
  });
  const { token: scimToken } = await issueScimToken(ctx, {
    realm: org.realm,
    name: 'bench',
    nameFormattedIncluded: true,
  });
  return { org, guarded, totpSecret, scimToken };
}

/** One timed sign-in per method. */
function signInSteps(
  ctx: BenchContext,
  api: string,
  world: Awaited<ReturnType<typeof prepare>>,
): Record<string, Step> {
  const { org, guarded, totpSecret, scimToken } = world;
  const createScimUser = (i: number) =>
    scim(api, scimToken, 'POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `bench-${i}-${randomBytes(3).toString('hex')}@example.com`,
      name: { formatted: `Bench ${i}` },
      active: true,
    });
  let created: string | null = null;
  return {
    password: () => passwordLogin(api, { username: org.owner.email }),
    password_totp: async () => {
      // Each code is good once per 30-second step: the benchmark forgets the last one used.
      await ctx.db.userTwoFactor.update({
        where: { userId: guarded.user.id },
        data: { lastStep: 0 },
      });
      return passwordLogin(api, { username: guarded.email, otp: currentTotp(totpSecret) });
    },
    oidc: async () =>
      (await redirectSignIn(api, '/accounts/login/social/oidc/keycloak', '/complete/oidc/')).ms,
    github: async () =>
      (await redirectSignIn(api, '/accounts/login/social/github', '/complete/github/')).ms,
    desktop: async () => {
      const otp = randomBytes(32).toString('hex');
      const flow = await redirectSignIn(
        api,
        `/accounts/login/social/oidc/keycloak?desktop_flow_otp=${otp}`,
        '/complete/oidc/',
      );
      const token = desktopLoginToken(await flow.done.text(), otp);
      const app = await timed(() =>
        fetch(`${api}/accounts/login/subdomain/${token}`, { redirect: 'manual' }),
      );
      if (app.res.status !== 302) throw new Error(`desktop token: ${app.res.status}`);
      return flow.ms + app.ms;
    },
    scim_create: async (i) => {
      const user = await createScimUser(i);
      created = user.id;
      return user.ms;
    },
    scim_deactivate: async (i) => {
      // The user scim_create made, or (without it) one made here untimed.
      const id = created ?? (await createScimUser(i)).id;
      created = null;
      return (
        await scim(api, scimToken, 'PATCH', `/Users/${id}`, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [{ op: 'replace', path: 'active', value: false }],
        })
      ).ms;
    },
    ldap: () => passwordLogin(api, { username: LDAP_PERSON.uid }),
    saml: async () => {
      const agent = new RedirectAgent();
      const leg = await toSamlAcs(agent, `${api}/accounts/login/social/saml/okta`);
      const done = await timed(() => agent.post(leg.form.action, leg.form.fields));
      if (done.res.status !== 302) throw new Error(`saml sign-in: ${done.res.status}`);
      return leg.startMs + done.ms;
    },
  };
}

async function main() {
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const peers: Peers = {
    oidc: await startOidcPeer([
      { client_id: 'chat', client_secret: 'chat-secret', redirect_uris: [`${api}/complete/oidc/`] },
    ]),
    github: await startGithubPeer({ id: 'gh-client', secret: 'gh-secret' }),
    slapd: await startSlapd([LDAP_PERSON]),
    saml: await startSamlIdp({ spOrigin: api }),
  };
  const wanted = process.env.BENCH_METHODS?.split(',').filter(Boolean);
  const env = serverSettings(port, peers);
  try {
    const report = await withScratchWorld(env, async (ctx, config) => {
      const steps = signInSteps(ctx, api, await prepare(ctx, config.secretKey, peers));
      const names = Object.keys(steps).filter((name) => !wanted || wanted.includes(name));
      const times = Object.fromEntries(names.map((name) => [name, [] as number[]]));
      const server = await startTier('api', config, env, port, { startSeconds: 150 });
      try {
        for (let i = 0; i < SIGN_INS; i++) {
          for (const name of names) times[name].push(await steps[name](i));
        }
      } finally {
        await server.stop();
      }
      return {
        sign_ins: SIGN_INS - WARM_UP,
        ...Object.fromEntries(names.map((name) => [name, stats(times[name])])),
      };
    });
    console.log(JSON.stringify(report));
  } finally {
    await peers.oidc.close();
    await peers.github.close();
    await peers.slapd.close();
    await peers.saml.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
