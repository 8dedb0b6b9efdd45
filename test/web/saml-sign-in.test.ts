import type { Browser } from 'puppeteer-core';
import { startSamlIdp, type SamlIdp } from '../auth/saml-idp';
import { makeRealm, type TestRealm } from '../factories';
import { freePort } from '../free-port';
import { startTestContext, type TestContext } from '../harness';
import { startTier, type Tier } from '../multiprocess/processes';
import { clickText, ensureWebBuilt, launchBrowser, openPage } from './browser';

/**
 * A SAML sign-in end to end in chromium: the web client's button, samlify's IdP on loopback
 * (its signed response submitted by the browser to the ACS), and back to the signed-in client.
 */
jest.setTimeout(180_000);

let t: TestContext;
let org: TestRealm;
let idp: SamlIdp;
let server: Tier;
let browser: Browser;
let api: string;

beforeAll(async () => {
  ensureWebBuilt();
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  idp = await startSamlIdp({ spOrigin: api });
  const env = {
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({
      okta: {
        entity_id: idp.entityId,
        url: idp.ssoUrl,
        x509cert: idp.x509cert,
        display_name: 'Okta',
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
  await idp?.close();
  await t?.close();
});

it('signs in with the Okta (SAML) button and comes back signed in', async () => {
  idp.signInAs({ email: org.owner.email, firstName: 'Olivia', lastName: 'Owner' });
  const { page, problems } = await openPage(browser, `${api}/`);
  await clickText(page, 'a.login-external-button', 'Log in with Okta');
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
