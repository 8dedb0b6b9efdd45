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
 */
import { createDecipheriv, randomBytes } from 'node:crypto';
import { makeRealm, makeUser } from '../test/factories';
import { freePort } from '../test/free-port';
import { startGithubPeer } from '../test/auth/github-peer';
import { RedirectAgent, startOidcPeer } from '../test/auth/oidc-peer';
import { postedForm, startSamlIdp } from '../test/auth/saml-idp';
import { LDAP_ADMIN_DN, LDAP_ADMIN_PASSWORD, LDAP_PEOPLE, startSlapd } from '../test/auth/slapd';
import { startTier } from '../test/multiprocess/processes';
import { currentTotp, encryptTotpSecret, newTotpSecret } from '../libs/domain/auth/totp';
import { issueScimToken } from '../libs/domain/scim/scim-clients';
import { percentile, round, withScratchWorld } from './scratch-world';

const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 60);
const WARM_UP = 10;
const PASSWORD = 'a long bench password';

const stats = (times: number[]) => {
  const sorted = times.slice(WARM_UP).sort((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)) };
};

/** Our two legs of a redirect sign-in, timed; the provider's pages between them are not. */
async function redirectSignIn(api: string, path: string, callbackPath: string) {
  const agent = new RedirectAgent();
  let started = performance.now();
  const start = await agent.get(`${api}${path}`);
  let ours = performance.now() - started;
  const atCallback = await agent.follow(start.headers.get('location')!, (location) =>
    location.startsWith(`${api}${callbackPath}`),
  );
  started = performance.now();
  const done = await agent.get(atCallback.hops[atCallback.hops.length - 1]);
  ours += performance.now() - started;
  return { done, ours };
}

/** Our two legs of a SAML sign-in, timed: the start, and the ACS POST of the IdP's form. */
async function samlSignIn(api: string, path: string) {
  const agent = new RedirectAgent();
  let started = performance.now();
  const start = await agent.get(`${api}${path}`);
  let ours = performance.now() - started;
  const form = postedForm(await (await agent.get(start.headers.get('location')!)).text());
  started = performance.now();
  const done = await agent.post(form.action, form.fields);
  ours += performance.now() - started;
  return { done, ours };
}

async function main() {
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const peer = await startOidcPeer([
    { client_id: 'chat', client_secret: 'chat-secret', redirect_uris: [`${api}/complete/oidc/`] },
  ]);
  const github = await startGithubPeer({ id: 'gh-client', secret: 'gh-secret' });
  const slapd = await startSlapd([
    {
      uid: 'bench',
      givenName: 'Bench',
      sn: 'Person',
      mail: 'bench@ldap.example',
      password: PASSWORD,
    },
  ]);
  const samlIdp = await startSamlIdp({ spOrigin: api });
  const env = {
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    BCRYPT_ROUNDS: '10',
    RATE_LIMIT_AUTH_ATTEMPTS: '100000',
    TWO_FACTOR_AUTHENTICATION_ENABLED: 'true',
    SOCIAL_AUTH_OIDC_ENABLED_IDPS: JSON.stringify({
      keycloak: {
        oidc_url: peer.issuer,
        display_name: 'Keycloak',
        client_id: 'chat',
        secret: 'chat-secret',
      },
    }),
    SOCIAL_AUTH_GITHUB_KEY: 'gh-client',
    SOCIAL_AUTH_GITHUB_SECRET: 'gh-secret',
    SOCIAL_AUTH_GITHUB_URL: github.url,
    SOCIAL_AUTH_GITHUB_API_URL: github.apiUrl,
    // LDAP_APPEND_DOMAIN: the other methods' addresses (example.com) never reach the directory.
    AUTH_LDAP_SERVER_URI: slapd.ldapUrl,
    AUTH_LDAP_START_TLS: 'true',
    AUTH_LDAP_CA_CERT_FILE: slapd.caFile,
    AUTH_LDAP_BIND_DN: LDAP_ADMIN_DN,
    AUTH_LDAP_BIND_PASSWORD: LDAP_ADMIN_PASSWORD,
    AUTH_LDAP_USER_SEARCH_BASE: LDAP_PEOPLE,
    LDAP_APPEND_DOMAIN: 'ldap.example',
    SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({
      okta: {
        entity_id: samlIdp.entityId,
        url: samlIdp.ssoUrl,
        x509cert: samlIdp.x509cert,
        display_name: 'Okta',
      },
    }),
  };
  try {
    const report = await withScratchWorld(env, async (ctx, config) => {
      const org = await makeRealm(ctx, { stringId: '', ownerPassword: PASSWORD });
      await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
      github.signInAs({
        login: 'owner',
        emails: [{ email: org.owner.email, primary: true, verified: true }],
      });
      samlIdp.signInAs({ email: org.owner.email });
      await makeUser(ctx, org.realm, { email: 'bench@ldap.example' });
      const guarded = await makeUser(ctx, org.realm, { password: PASSWORD });
      const secret = newTotpSecret();
      await ctx.db.userTwoFactor.create({
        data: {
          userId: guarded.user.id,
          secretCiphertext: encryptTotpSecret(secret, config.secretKey),
          backupCodeHashes: [],
        },
      });
      const { token: scimToken } = await issueScimToken(ctx, {
        realm: org.realm,
        name: 'bench',
        nameFormattedIncluded: true,
      });
      const server = await startTier('api', config, env, port, { startSeconds: 150 });
      const times: Record<string, number[]> = {
        password: [],
        password_totp: [],
        oidc: [],
        github: [],
        desktop: [],
        scim_create: [],
        scim_deactivate: [],
        ldap: [],
        saml: [],
      };
      const passwordLogin = async (fields: Record<string, string>) => {
        const page = await fetch(`${api}/accounts/password/reset/`);
        const csrf = /csrftoken=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')![1];
        const started = performance.now();
        const login = await fetch(`${api}/json/login`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/x-www-form-urlencoded',
            'X-CSRFToken': csrf,
            Cookie: `csrftoken=${csrf}`,
          },
          body: new URLSearchParams({ password: PASSWORD, ...fields }),
        });
        if (login.status !== 200) throw new Error(`password sign-in: ${login.status}`);
        return performance.now() - started;
      };
      const scim = async (method: string, path: string, body: unknown) => {
        const started = performance.now();
        const res = await fetch(`${api}/scim/v2${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${scimToken}`,
            'Content-Type': 'application/scim+json',
          },
          body: JSON.stringify(body),
        });
        const elapsed = performance.now() - started;
        if (res.status >= 300) throw new Error(`SCIM ${method} ${path}: ${res.status}`);
        return { elapsed, body: (await res.json()) as { id: string } };
      };
      try {
        for (let i = 0; i < SIGN_INS; i++) {
          times.password.push(await passwordLogin({ username: org.owner.email }));
          // Each code is good once per 30-second step: the benchmark forgets the last one used.
          await ctx.db.userTwoFactor.update({
            where: { userId: guarded.user.id },
            data: { lastStep: 0 },
          });
          times.password_totp.push(
            await passwordLogin({ username: guarded.email, otp: currentTotp(secret) }),
          );

          const oidc = await redirectSignIn(
            api,
            '/accounts/login/social/oidc/keycloak',
            '/complete/oidc/',
          );
          if (oidc.done.status !== 302) throw new Error(`oidc sign-in: ${oidc.done.status}`);
          times.oidc.push(oidc.ours);

          const gh = await redirectSignIn(
            api,
            '/accounts/login/social/github',
            '/complete/github/',
          );
          if (gh.done.status !== 302) throw new Error(`github sign-in: ${gh.done.status}`);
          times.github.push(gh.ours);

          const otp = randomBytes(32).toString('hex');
          const desktop = await redirectSignIn(
            api,
            `/accounts/login/social/oidc/keycloak?desktop_flow_otp=${otp}`,
            '/complete/oidc/',
          );
          const data = /value="([0-9a-f]+)"/.exec(await desktop.done.text())![1];
          const bytes = Buffer.from(data, 'hex');
          const decipher = createDecipheriv(
            'aes-256-gcm',
            Buffer.from(otp, 'hex'),
            bytes.subarray(0, 12),
          );
          decipher.setAuthTag(bytes.subarray(bytes.length - 16));
          const token = Buffer.concat([decipher.update(bytes.subarray(12, -16)), decipher.final()]);
          const started = performance.now();
          const app = await fetch(`${api}/accounts/login/subdomain/${token.toString()}`, {
            redirect: 'manual',
          });
          if (app.status !== 302) throw new Error(`desktop token: ${app.status}`);
          times.desktop.push(desktop.ours + performance.now() - started);

          const created = await scim('POST', '/Users', {
            schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
            userName: `bench-${i}-${randomBytes(3).toString('hex')}@example.com`,
            name: { formatted: `Bench ${i}` },
            active: true,
          });
          times.scim_create.push(created.elapsed);
          const patched = await scim('PATCH', `/Users/${created.body.id}`, {
            schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
            Operations: [{ op: 'replace', path: 'active', value: false }],
          });
          times.scim_deactivate.push(patched.elapsed);

          times.ldap.push(await passwordLogin({ username: 'bench' }));
          const saml = await samlSignIn(api, '/accounts/login/social/saml/okta');
          if (saml.done.status !== 302) throw new Error(`saml sign-in: ${saml.done.status}`);
          times.saml.push(saml.ours);
        }
        return {
          sign_ins: SIGN_INS - WARM_UP,
          ...Object.fromEntries(Object.entries(times).map(([name, list]) => [name, stats(list)])),
        };
      } finally {
        await server.stop();
      }
    });
    console.log(JSON.stringify(report));
  } finally {
    await peer.close();
    await github.close();
    await slapd.close();
    await samlIdp.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
