/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import type { Browser } from 'puppeteer-core';
import { makeRealm, type TestRealm } from '../factories';
import { freePort } from '../free-port';
import { startTestContext, type TestContext } from '../harness';
import { startTier, type Tier } from '../multiprocess/processes';
import { clickText, ensureWebBuilt, launchBrowser, openPage } from './browser';

/** What a sign-in test in chromium signs in to. */
export interface SignInWorld {
  t: TestContext;
  /** The organization "Acme" at the root domain; `ownerPassword` is its owner's. */
  org: TestRealm;
  server: Tier;
  browser: Browser;
  /** `http://127.0.0.1:<port>`, where the server answers. */
  api: string;
  close(): Promise<void>;
}

/**
 * The set-up of the sign-in tests in chromium: `npm start`'s one process on a free port with
 * the settings `settings(api)` gives (the providers need the server's address first), one
 * organization, and chromium.
 */
export async function startSignInWorld(
  settings: (api: string) => Promise<Record<string, string>> | Record<string, string>,
  options: { ownerPassword?: string } = {},
): Promise<SignInWorld> {
  ensureWebBuilt();
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const env = { EXTERNAL_HOST: `127.0.0.1:${port}`, ...(await settings(api)) };
  const t = await startTestContext(env);
  const org = await makeRealm(t, { stringId: '', name: 'Acme', ...options });
  const server = await startTier('all', t.config, env, port, { startSeconds: 150 });
  const browser = await launchBrowser();
  return {
    t,
    org,
    server,
    browser,
    api,
    async close() {
      await browser.close();
      await server.stop();
      await t.close();
    },
  };
}

/**
 * Presses the sign-in page's button for an external method (`Log in with <name>`) and follows
 * the browser back to the client: where it landed, the session cookie, who `/json/users/me` says
 * is signed in, and what the pages reported (script errors, CSP refusals).
 */
export async function signInWithButton(world: SignInWorld, name: string) {
  const { page, problems } = await openPage(world.browser, `${world.api}/`);
  await clickText(page, 'a.login-external-button', `Log in with ${name}`);
  await page.waitForSelector('.realm-name', { timeout: 60_000 });
  const cookies = await page.browserContext().cookies();
  const me = await page.evaluate(async () => {
    const res = await fetch('/json/users/me');
    return (await res.json()) as { user_id: number };
  });
  return {
    origin: new URL(page.url()).origin,
    sessionCookie: cookies.find((c) => c.name === 'sessionid'),
    userId: me.user_id,
    problems,
  };
}
