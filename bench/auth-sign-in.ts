/**
 * Sign-in server time per method (not a test): `npx tsx bench/auth-sign-in.ts`.
 *
 * Starts one `api` process and a real `oidc-provider` on loopback, then signs the same person in
 * BENCH_SIGN_INS times (default 60; the first 10 warm up) by each method and prints p50 / p99 of
 * the server's answers:
 * - password: `POST /json/login` (bcrypt at the production cost, 10 rounds);
 * - oidc: the start (`/accounts/login/social/oidc/<name>`) plus the callback (`/complete/oidc/`).
 *   The callback includes its round trips to the provider's token endpoint (and, the first time,
 *   discovery and JWKS), so the figure is an upper bound of the server's own time; the provider's
 *   login pages between the two are not counted.
 */
import { makeRealm } from '../test/factories';
import { freePort } from '../test/free-port';
import { RedirectAgent, startOidcPeer } from '../test/auth/oidc-peer';
import { startTier } from '../test/multiprocess/processes';
import { percentile, round, withScratchWorld } from './scratch-world';

const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 60);
const WARM_UP = 10;
const PASSWORD = 'a long bench password';

const stats = (times: number[]) => {
  const sorted = times.slice(WARM_UP).sort((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)) };
};

async function main() {
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const peer = await startOidcPeer([
    { client_id: 'chat', client_secret: 'chat-secret', redirect_uris: [`${api}/complete/oidc/`] },
  ]);
  const env = {
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    BCRYPT_ROUNDS: '10',
    RATE_LIMIT_AUTH_ATTEMPTS: '100000',
    SOCIAL_AUTH_OIDC_ENABLED_IDPS: JSON.stringify({
      keycloak: {
        oidc_url: peer.issuer,
        display_name: 'Keycloak',
        client_id: 'chat',
        secret: 'chat-secret',
      },
    }),
  };
  try {
    const report = await withScratchWorld(env, async (ctx, config) => {
      const org = await makeRealm(ctx, { stringId: '', ownerPassword: PASSWORD });
      await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
      const server = await startTier('api', config, env, port, { startSeconds: 150 });
      try {
        const password: number[] = [];
        const oidc: number[] = [];
        for (let i = 0; i < SIGN_INS; i++) {
          const page = await fetch(`${api}/accounts/password/reset/`);
          const csrf = /csrftoken=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')![1];
          let started = performance.now();
          const login = await fetch(`${api}/json/login`, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/x-www-form-urlencoded',
              'X-CSRFToken': csrf,
              Cookie: `csrftoken=${csrf}`,
            },
            body: new URLSearchParams({ username: org.owner.email, password: PASSWORD }),
          });
          if (login.status !== 200) throw new Error(`password sign-in: ${login.status}`);
          password.push(performance.now() - started);

          const agent = new RedirectAgent();
          started = performance.now();
          const start = await agent.get(`${api}/accounts/login/social/oidc/keycloak`);
          let ours = performance.now() - started;
          const toProvider = start.headers.get('location')!;
          const atCallback = await agent.follow(toProvider, (location) =>
            location.startsWith(`${api}/complete/oidc/`),
          );
          const callback = atCallback.hops[atCallback.hops.length - 1];
          started = performance.now();
          const done = await agent.get(callback);
          ours += performance.now() - started;
          if (done.status !== 302) throw new Error(`oidc sign-in: ${done.status}`);
          oidc.push(ours);
        }
        return { sign_ins: SIGN_INS - WARM_UP, password: stats(password), oidc: stats(oidc) };
      } finally {
        await server.stop();
      }
    });
    console.log(JSON.stringify(report));
  } finally {
    await peer.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
