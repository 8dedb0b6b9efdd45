/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import {
  clickInList,
  accessibilityViolations,
  clickText,
  compose,
  launchBrowser,
  logIn,
  messageSelector,
  openPage,
  pngImage,
  screenshot,
  seeMessage,
  type Person,
  type Watched,
} from './browser';
import { PASSWORD } from './web-server';

export interface Site {
  url: string;
  alice: Person;
  bob: Person;
  /** The channel both are subscribed to. */
  channel: string;
  /**
   * Restarts the event-queue tier; `meanwhile` runs while it is down (or, where the API stops
   * with it, as soon as the server is back, before the clients have reconnected).
   */
  restartEvents(meanwhile: () => Promise<void>): Promise<void>;
  /** Where to write screenshots, if this run takes them. */
  screenshots?: string;
}

/**
 * The web client's acceptance run (issue 25): two people in two browser contexts sign in, talk in
 * a channel and in direct messages, react, edit, upload, and keep up across a restart of the
 * event-queue tier. Registers its tests in order; `site` is ready by the time the first runs.
 */
export function twoPeopleInBrowsers(site: () => Site): void {
  let browser: Browser;
  let a: Watched;
  let b: Watched;
  let s: Site;
  const run = Date.now().toString(36);

  beforeAll(async () => {
    s = site();
    browser = await launchBrowser();
    a = await openPage(browser, s.url);
    b = await openPage(browser, s.url);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const post = async (who: Person, fields: Record<string, string>) => {
    const res = await fetch(`${s.url}/api/v1/messages`, {
      method: 'POST',
      headers: { Authorization: who.auth, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    if (res.status !== 200) throw new Error(`send failed: ${res.status} ${await res.text()}`);
  };

  it('both log in and open the channel', async () => {
    await a.page.waitForSelector('input[name=username]');
    await screenshot(a.page, s.screenshots, 'login');
    await logIn(a.page, s.alice.email, PASSWORD);
    await logIn(b.page, s.bob.email, PASSWORD);
    for (const { page } of [a, b]) {
      await clickText(page, '.sidebar .nav-item', `# ${s.channel}`);
      await page.waitForSelector('textarea[aria-label=Message]');
    }
    // The first message through a freshly started server pays for its cold code paths (about
    // 200 ms against 50-70 ms after it here, a second on a busy CI box); the bound of the next
    // test is about a server that is running.
    const welcome = `Welcome to #${s.channel} (${run})`;
    await post(s.alice, { type: 'stream', to: s.channel, topic: 'welcome', content: welcome });
    await seeMessage(b.page, welcome);
  });

  it('A posts to the channel and B sees it live within 1 s', async () => {
    const text = `hello from alice ${run}`;
    await compose(a.page, text, 'browser test');
    const seen = seeMessage(b.page, text, 10_000);
    await a.page.keyboard.press('Enter');
    const started = Date.now();
    await seen;
    expect(Date.now() - started).toBeLessThan(1000);
    await seeMessage(a.page, text);
  });

  it('B reacts and A sees the reaction', async () => {
    const text = `hello from alice ${run}`;
    const message = await messageSelector(b.page, text);
    await clickInList(b.page, `${message} button[aria-label="Add reaction"]`);
    await b.page.waitForSelector('.emoji-picker .choices button');
    await b.page.click('.emoji-picker .choices button[aria-label="+1"]');
    const onA = await messageSelector(a.page, text);
    await a.page.waitForSelector(`${onA} .reaction`);
    const label = await a.page.$eval(`${onA} .reaction`, (e) => e.getAttribute('aria-label'));
    expect(label).toContain(s.bob.fullName);
  });

  it('A edits the message and B sees the edit', async () => {
    const message = await messageSelector(a.page, `hello from alice ${run}`);
    await clickInList(a.page, `${message} button[aria-label="Message actions"]`);
    await clickText(a.page, '.popover [role=menuitem]', 'Edit message');
    const editor = `${message} textarea[aria-label="Edit message"]`;
    await a.page.waitForSelector(editor);
    await a.page.click(editor, { count: 3 });
    await a.page.keyboard.down('Control');
    await a.page.keyboard.press('a');
    await a.page.keyboard.up('Control');
    await a.page.type(editor, `edited by alice ${run}`);
    await a.page.keyboard.press('Enter');
    await seeMessage(b.page, `edited by alice ${run}`);
    await seeMessage(a.page, `edited by alice ${run}`);
  });

  it('A deletes a message and B sees it go', async () => {
    const text = `mistake by alice ${run}`;
    await compose(a.page, text);
    await a.page.keyboard.press('Enter');
    await seeMessage(b.page, text);
    // A's own copy comes as an event too, maybe after B's.
    await seeMessage(a.page, text);
    const message = await messageSelector(a.page, text);
    await clickInList(a.page, `${message} button[aria-label="Message actions"]`);
    await clickText(a.page, '.popover [role=menuitem]', 'Delete message');
    await clickText(a.page, `${message} .confirm button`, 'Delete');
    await b.page.waitForFunction(
      (t) =>
        ![...document.querySelectorAll('.message .content')].some((e) =>
          e.textContent?.includes(t),
        ),
      { timeout: 5_000 },
      text,
    );
  });

  it('composes with completion, a preview, Shift+Enter and Esc', async () => {
    const box = 'textarea[aria-label=Message]';
    await compose(a.page, `line one ${run} @Bo`);
    await a.page.waitForSelector('.suggestions [role=option]');
    await a.page.keyboard.press('Enter');
    await a.page.type(box, ':tada');
    await a.page.waitForSelector('.suggestions [role=option]');
    await a.page.keyboard.press('Enter');
    const value = await a.page.$eval(box, (e) => (e as HTMLTextAreaElement).value);
    expect(value).toContain(`@**${s.bob.fullName}**`);
    expect(value).toContain(':tada:');
    await clickText(a.page, '.compose-actions button', 'Preview');
    await a.page.waitForSelector('.preview .user-mention');
    await clickText(a.page, '.compose-actions button', 'Edit');
    // Esc drops the draft.
    await a.page.click(box);
    await a.page.keyboard.press('Escape');
    expect(await a.page.$eval(box, (e) => (e as HTMLTextAreaElement).value)).toBe('');
    await compose(a.page, `first line ${run}`);
    await a.page.keyboard.down('Shift');
    await a.page.keyboard.press('Enter');
    await a.page.keyboard.up('Shift');
    await a.page.type(box, `second line ${run}`);
    await a.page.keyboard.press('Enter');
    await seeMessage(b.page, `second line ${run}`);
    const content = await b.page.evaluate(
      (t) =>
        [...document.querySelectorAll('.message .content')].find((e) => e.textContent?.includes(t))
          ?.textContent,
      `second line ${run}`,
    );
    expect(content).toContain(`first line ${run}`);
  });

  it('A uploads an image and both see the preview', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'web-upload-'));
    const file = path.join(dir, `square-${run}.png`);
    writeFileSync(file, pngImage());
    const input = await a.page.$('input[type=file]');
    await input!.uploadFile(file);
    await a.page.waitForFunction(
      () =>
        document
          .querySelector<HTMLTextAreaElement>('textarea[aria-label=Message]')
          ?.value.includes('/user_uploads/'),
      { timeout: 10_000 },
    );
    await a.page.click('textarea[aria-label=Message]');
    await a.page.keyboard.press('Enter');
    for (const { page } of [a, b]) {
      // The image itself loads, with the session cookie.
      await page.waitForFunction(
        (name) =>
          [...document.querySelectorAll<HTMLImageElement>('.message_inline_image img')].some(
            (img) =>
              img.closest('a')?.getAttribute('href')?.includes(name) &&
              img.complete &&
              img.naturalWidth > 0,
          ),
        { timeout: 10_000 },
        `square-${run}`,
      );
    }
    await screenshot(a.page, s.screenshots, 'channel');
  });

  it('they exchange direct messages, with unread counts and typing shown', async () => {
    await clickText(a.page, '.sidebar .nav-item', s.bob.fullName);
    await a.page.waitForSelector('textarea[aria-label=Message]');
    await compose(a.page, `psst bob ${run}`);
    await a.page.keyboard.press('Enter');
    await seeMessage(a.page, `psst bob ${run}`);
    // B is elsewhere: the conversation with A shows one unread message.
    await b.page.waitForFunction(
      (name) =>
        [...document.querySelectorAll('.sidebar .nav-item')].some(
          (e) => e.textContent?.includes(name) && e.querySelector('.unread')?.textContent === '1',
        ),
      { timeout: 5_000 },
      s.alice.fullName,
    );
    await clickText(b.page, '.sidebar .nav-item', s.alice.fullName);
    await seeMessage(b.page, `psst bob ${run}`);
    await compose(b.page, `hi alice ${run}`);
    await a.page.waitForFunction(
      (name) => document.querySelector('.typing')?.textContent?.includes(name),
      { timeout: 5_000 },
      s.bob.fullName,
    );
    await b.page.keyboard.press('Enter');
    await seeMessage(a.page, `hi alice ${run}`);
    // Seen on screen, so read: the count goes away.
    await b.page.waitForFunction(
      (name) =>
        ![...document.querySelectorAll('.sidebar .nav-item')].some(
          (e) => e.textContent?.includes(name) && e.querySelector('.unread'),
        ),
      { timeout: 5_000 },
      s.alice.fullName,
    );
    await screenshot(b.page, s.screenshots, 'direct-messages');
  });

  it('after the events process restarts, both reconnect and miss nothing', async () => {
    const toBob = `while restarting, to bob ${run}`;
    const toAlice = `while restarting, to alice ${run}`;
    await s.restartEvents(async () => {
      await post(s.alice, { type: 'direct', to: JSON.stringify([s.bob.email]), content: toBob });
      await post(s.bob, { type: 'direct', to: JSON.stringify([s.alice.email]), content: toAlice });
    });
    await seeMessage(b.page, toBob, 30_000);
    await seeMessage(a.page, toAlice, 30_000);
    await seeMessage(a.page, toBob, 30_000);
    for (const { page } of [a, b]) {
      await page.waitForFunction(() => !document.querySelector('.reconnecting'), {
        timeout: 30_000,
      });
    }
    // And live again: a message after the restart arrives without reloading.
    await compose(a.page, `after the restart ${run}`);
    await a.page.keyboard.press('Enter');
    await seeMessage(b.page, `after the restart ${run}`);
  });

  it('has no serious accessibility violations, no CSP refusals and no script errors', async () => {
    await clickText(a.page, '.sidebar .nav-item', `# ${s.channel}`);
    await seeMessage(a.page, `edited by alice ${run}`);
    expect(await accessibilityViolations(a.page)).toEqual([]);
    expect(await accessibilityViolations(b.page)).toEqual([]);
    expect(a.problems).toEqual([]);
    expect(b.problems).toEqual([]);
  });

  it('a link to the channel shows it, and a page left and come back to keeps up', async () => {
    await clickText(a.page, '.sidebar .nav-item', `# ${s.channel}`);
    await seeMessage(a.page, `edited by alice ${run}`);
    const link = await a.page.evaluate(() => location.href);
    await a.page.goto('about:blank');
    await a.page.goto(link, { waitUntil: 'domcontentloaded' });
    await seeMessage(a.page, `edited by alice ${run}`);
    // Left for another page and back (from the back/forward cache, which ends the poll).
    await a.page.goto('about:blank');
    await a.page.goBack();
    const text = `after coming back ${run}`;
    await post(s.bob, { type: 'stream', to: s.channel, topic: 'browser test', content: text });
    await seeMessage(a.page, text);
  });

  it('works at phone size', async () => {
    const page: Page = a.page;
    await page.setViewport({ width: 390, height: 800 });
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.sidebar')!).display === 'none',
    );
    await screenshot(page, s.screenshots, 'phone');
    await page.click('button[aria-label=Conversations]');
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('.sidebar')!).display !== 'none',
    );
    await screenshot(page, s.screenshots, 'phone-menu');
    await clickText(page, '.sidebar .nav-item', s.bob.fullName);
    await seeMessage(page, `hi alice ${run}`);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('logs out', async () => {
    await a.page.setViewport({ width: 1200, height: 800 });
    await clickText(a.page, 'button', 'Log out');
    await a.page.waitForSelector('input[name=username]');
    const me = await a.page.evaluate(async () => (await fetch('/json/users/me')).status);
    expect(me).toBe(401);
  });
}
