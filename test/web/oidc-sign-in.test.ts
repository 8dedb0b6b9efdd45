import type { Browser } from 'puppeteer-core';
import { startOidcPeer, type OidcPeer } from '../auth/oidc-peer';
import { makeRealm, type TestRealm } from '../factories';
import { freePort } from '../free-port';
import { startTestContext, type TestContext } from '../harness';
import { startTier, type Tier } from '../multiprocess/processes';
import { clickText, ensureWebBuilt, launchBrowser, openPage } from './browser';

/**
 * An OpenID Connect sign-in end to end in chromium: the web client's button, the real
 * `oidc-provider` on loopback, and back to the signed-in client.
 */
jest.setTimeout(180_000);

let t: TestContext;
let org: TestRealm;
let peer: OidcPeer;
let server: Tier;
let browser: Browser;
let api: string;

beforeAll(async () => {
  ensureWebBuilt();
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  peer = await startOidcPeer([
    { client_id: 'chat', client_secret: 'chat-secret', redirect_uris: [`${api}/complete/oidc/`] },
  ]);
  const env = {
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    SOCIAL_AUTH_OIDC_ENABLED_IDPS: JSON.stringify({
      keycloak: {
        oidc_url: peer.issuer,
        display_name: 'Keycloak',
        client_id: 'chat',
        secret: 'chat-secret',
      },
    }),
  };
  t = await startTestContext(env);
  org = await makeRealm(t, { stringId: '', name: 'Acme' });
  server = await startTier('all', t.config, env, port, { startSeconds: 150 });
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await peer?.close();
  await t?.close();
});

it('signs in with the Keycloak button and comes back signed in', async () => {
  await peer.signInAs({ sub: 'owner', email: org.owner.email, email_verified: true });
  const { page, problems } = await openPage(browser, `${api}/`);
  await clickText(page, 'a.login-external-button', 'Log in with Keycloak');
  await page.waitForSelector('.realm-name', { timeout: 60_000 });
  expect(new URL(page.url()).origin).toBe(api);
  const cookies = await page.browserContext().cookies();
  expect(cookies.find((c) => c.name === 'sessionid')?.httpOnly).toBe(true);
  const me = await page.evaluate(async () => {
    const res = await fetch('/json/users/me');
    return (await res.json()) as { user_id: number };
  });
  expect(me.user_id).toBe(org.owner.user.id);
  expect(problems).toEqual([]);
});
