/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import type { Browser } from 'puppeteer-core';
import {
  LDAP_ADMIN_DN,
  LDAP_ADMIN_PASSWORD,
  LDAP_PEOPLE,
  startSlapd,
  type Slapd,
} from '../auth/slapd';
import { makeRealm, makeUser } from '../factories';
import { freePort } from '../free-port';
import { startTestContext, type TestContext } from '../harness';
import { startTier, type Tier } from '../multiprocess/processes';
import { ensureWebBuilt, launchBrowser, logIn, openPage } from './browser';

/**
 * The sign-in form with LDAP (Debian's slapd, started here): people sign in with their uid, which
 * is no email address, so the username field is text (`type="email"` made the browser refuse
 * it), with `autocomplete="username"`. Where usernames are addresses, the phone's keyboard is
 * still the email one (`inputmode`).
 */
jest.setTimeout(180_000);

const JANE = {
  uid: 'jdoe',
  givenName: 'Jane',
  sn: 'Doe',
  mail: 'jdoe@acme.example',
  password: 'jane ldap pw',
};

let slapd: Slapd;
let t: TestContext;
let server: Tier;
let browser: Browser;

beforeAll(async () => {
  ensureWebBuilt();
  slapd = await startSlapd([JANE]);
  const port = await freePort();
  const env = {
    EXTERNAL_HOST: `127.0.0.1:${port}`,
    AUTH_LDAP_SERVER_URI: slapd.ldapUrl,
    AUTH_LDAP_START_TLS: 'true',
    AUTH_LDAP_CA_CERT_FILE: slapd.caFile,
    AUTH_LDAP_BIND_DN: LDAP_ADMIN_DN,
    AUTH_LDAP_BIND_PASSWORD: LDAP_ADMIN_PASSWORD,
    AUTH_LDAP_USER_SEARCH_BASE: LDAP_PEOPLE,
    // The uid is what one types; the account's address is uid@acme.example.
    LDAP_APPEND_DOMAIN: 'acme.example',
  };
  t = await startTestContext(env);
  const org = await makeRealm(t, { stringId: '', name: 'Acme' });
  await makeUser(t, org.realm, { email: JANE.mail, fullName: 'Jane Doe' });
  server = await startTier('all', t.config, env, port, { startSeconds: 150 });
  browser = await launchBrowser();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
  await slapd?.close();
});

it('signs in with an LDAP uid typed into a text field named for a username', async () => {
  const { page, problems } = await openPage(browser, server.url);
  await page.waitForFunction(() =>
    document.querySelector('.login-card label')?.textContent?.includes('Email or username'),
  );
  const field = await page.$eval('input[name=username]', (e) => {
    const input = e as HTMLInputElement;
    return {
      type: input.type,
      autocomplete: input.autocomplete,
      inputMode: input.inputMode,
      autocapitalize: input.getAttribute('autocapitalize'),
    };
  });
  expect(field).toEqual({
    type: 'text',
    autocomplete: 'username',
    inputMode: 'text',
    autocapitalize: 'none',
  });
  await logIn(page, JANE.uid, JANE.password);
  const me = await page.evaluate(async () => {
    const res = await fetch('/json/users/me');
    return (await res.json()) as { email: string; full_name: string };
  });
  expect(me.full_name).toBe('Jane Doe');
  expect(problems).toEqual([]);
});
