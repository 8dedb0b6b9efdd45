/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { Role } from '../../libs/domain/users/roles';
import {
  accessibilityViolations,
  apiAs,
  clickText,
  compose,
  launchBrowser,
  logIn,
  openPage,
  pngImage,
  screenshot,
  seeMessage,
  type Person,
  type Watched,
} from './browser';
import { PASSWORD, startWebServer, type WebServer } from './web-server';

/**
 * Link previews end to end (Zulip's inline URL embed preview): Alice, an administrator, turns
 * them on in the organization's settings and posts a link to a page on a loopback site; the worker tier fetches it, renders the message again and sends the
 * rendering-only `update_message`; Bob, in another browser, sees the preview appear, its image
 * through the camo proxy, without the message being marked edited.
 */
jest.setTimeout(240_000);

const SCREENSHOTS = path.join(__dirname, '../../docs/screenshots');
const CHANNEL = 'reading';
const TITLE = 'Field notes: shipping the new editor';

let web: WebServer;
let site: http.Server;
let siteUrl: string;
let browser: Browser;
let alice: Person;
let bob: Person;
let a: Watched;
let b: Watched;

/** A page with Open Graph tags and its cover image. */
function startSite(): Promise<void> {
  site = http.createServer((req, res) => {
    if (req.url === '/cover.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(pngImage());
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><title>notes</title>
       <meta property="og:title" content="${TITLE}">
       <meta property="og:description" content="What we learned moving a team of twelve to a new editor in a week.">
       <meta property="og:image" content="/cover.png">`,
    );
  });
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      resolve();
    });
  });
}

const api = (who: Person, method: string, route: string, form: Record<string, string>) =>
  apiAs(web.server.url, who, method, route, form);

/** Alice ticks "Show previews of linked websites" in the organization's settings. */
async function turnPreviewsOn(): Promise<void> {
  await a.page.evaluate(() => (location.hash = '#organization/organization'));
  const label = 'Show previews of linked websites';
  await clickText(a.page, 'label.check', label);
  const realm = () => web.t.db.realm.findFirstOrThrow({ where: { stringId: '' } });
  for (let tries = 0; !(await realm()).inlineUrlEmbedPreview; tries++) {
    if (tries === 100) throw new Error('inline_url_embed_preview was not turned on');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The switch shows the setting once the realm event is back.
  await a.page.waitForFunction(
    (text) =>
      [...document.querySelectorAll<HTMLLabelElement>('label.check')]
        .find((l) => l.textContent?.includes(text))
        ?.querySelector('input')?.checked,
    { timeout: 10_000 },
    label,
  );
}

beforeAll(async () => {
  await startSite();
  web = await startWebServer({
    // Alice administers the organization: she turns previews on (off by default, as in Zulip).
    people: [{ fullName: 'Alice Adams', role: Role.ADMINISTRATOR }, { fullName: 'Bob Brown' }],
    enterSends: true,
    // The site is on loopback: allowed for this test only. Images go through the camo proxy.
    env: { OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', CAMO_URI: '/external_content/' },
  });
  [alice, bob] = web.people;
  await api(alice, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: CHANNEL }]),
    principals: JSON.stringify([alice.email, bob.email]),
  });
  browser = await launchBrowser();
  a = await openPage(browser, web.server.url);
  b = await openPage(browser, web.server.url);
  await logIn(a.page, alice.email, PASSWORD);
  await logIn(b.page, bob.email, PASSWORD);
  await a.page.waitForSelector('.sidebar .nav-item', { timeout: 20_000 });
  await turnPreviewsOn();
  for (const { page } of [a, b]) {
    await clickText(page, '.sidebar .nav-item', `# ${CHANNEL}`);
    await page.waitForSelector('textarea[aria-label=Message]');
  }
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await new Promise((resolve) => site?.close(resolve));
});

describe('link previews in the web client', () => {
  it('A posts a link; B sees the page preview appear, its image loaded, not marked edited', async () => {
    const link = `${siteUrl}/notes`;
    await compose(a.page, `Worth a read: ${link}`, 'articles');
    await a.page.keyboard.press('Enter');
    await seeMessage(b.page, 'Worth a read');
    const started = Date.now();
    await b.page.waitForFunction(
      (title) =>
        document.querySelector('.message_embed .message_embed_title a')?.textContent === title,
      { timeout: 20_000, polling: 100 },
      TITLE,
    );
    const shownAfter = Date.now() - started;
    const preview = await b.page.evaluate(async () => {
      const image = document.querySelector<HTMLElement>('.message_embed_image')!;
      const src = /url\("(.*)"\)/.exec(getComputedStyle(image).backgroundImage)?.[1] ?? '';
      const img = new Image();
      img.src = src;
      await img.decode();
      const box = image.getBoundingClientRect();
      return {
        src: new URL(src).pathname,
        width: img.naturalWidth,
        box: [Math.round(box.width), Math.round(box.height)],
        description: document.querySelector('.message_embed_description')?.textContent,
        edited: !!document.querySelector('.message .edited'),
        title: document.querySelector('.message_embed_title a')?.getAttribute('href'),
      };
    });
    expect(preview).toMatchObject({
      width: 48,
      box: [80, 80],
      edited: false,
      title: link,
      description: expect.stringContaining('twelve'),
    });
    expect(preview.src).toMatch(/^\/external_content\/[0-9a-f]{40}\/[0-9a-f]+$/);
    // Alice's own view redraws too.
    await a.page.waitForSelector('.message_embed .message_embed_title');
    await screenshot(b.page, SCREENSHOTS, 'link-preview');
    await b.page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
    await screenshot(b.page, SCREENSHOTS, 'link-preview-dark');
    expect(await accessibilityViolations(b.page)).toEqual([]);
    await b.page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
    expect(await accessibilityViolations(b.page)).toEqual([]);
    expect(a.problems).toEqual([]);
    expect(b.problems).toEqual([]);
    // The fetch and the second rendering take a worker moment, not seconds.
    expect(shownAfter).toBeLessThan(10_000);
  });
});
