/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import {
  clickInList,
  accessibilityViolations,
  apiAs,
  clickText,
  compose,
  launchBrowser,
  logIn,
  messageSelector,
  openPage,
  screenshot,
  seeMessage,
  type Person,
  type Watched,
} from './browser';
import { PASSWORD, startWebServer, type WebServer } from './web-server';

/**
 * The web client as the user's own settings ask (issue 43), with Alice in chromium and Bob
 * writing to her through the API: the notification sound (`enable_sounds`, `notification_sound`),
 * the keys that send (`enter_sends`, and Enter on touch screens), the sign-in field, and a
 * message's edit history. Writes docs/screenshots/edit-history.png.
 */
jest.setTimeout(180_000);

const SHOTS = path.join(__dirname, '../../docs/screenshots');
const CHANNEL = 'plans';

let web: WebServer;
let browser: Browser;
let alice: Person;
let bob: Person;
let channelId: number;
let a: Watched;

const api = <T = Record<string, unknown>>(
  who: Person,
  method: string,
  route: string,
  form: Record<string, string> = {},
) => apiAs<T>(web.server.url, who, method, route, form);

/** The message box's text. */
const boxValue = (page: Page) =>
  page.$eval('textarea[aria-label=Message]', (e) => (e as HTMLTextAreaElement).value);

/** Presses Enter with Ctrl held. */
async function ctrlEnter(page: Page): Promise<void> {
  await page.keyboard.down('Control');
  await page.keyboard.press('Enter');
  await page.keyboard.up('Control');
}

/** A view of the page, loaded afresh and registered. */
async function visit(page: Page, hash: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${web.server.url}/${hash}`);
  // Registered: the channels are drawn (the list may show before).
  await page.waitForFunction(
    (name) =>
      [...document.querySelectorAll('.sidebar .nav-item')].some((e) =>
        e.textContent?.includes(`# ${name}`),
      ),
    { timeout: 20_000 },
    CHANNEL,
  );
}

const openChannel = (page: Page) => visit(page, `#narrow/channel/${channelId}`);

beforeAll(async () => {
  // `enter_sends` stays at Zulip's default (Ctrl+Enter sends), which a test checks, then changes.
  web = await startWebServer({ people: [{ fullName: 'Alice Adams' }, { fullName: 'Bob Brown' }] });
  [alice, bob] = web.people;
  await api(alice, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: CHANNEL }]),
    principals: JSON.stringify([alice.id, bob.id]),
  });
  channelId = (
    await api<{ stream_id: number }>(alice, 'GET', '/get_stream_id', { stream: CHANNEL })
  ).stream_id;
  browser = await launchBrowser();
  a = await openPage(browser, web.server.url);
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

it('signs in with the address typed into a text field that keeps the email keyboard', async () => {
  await a.page.waitForSelector('input[name=username]');
  const field = await a.page.$eval('input[name=username]', (e) => {
    const input = e as HTMLInputElement;
    return {
      label: input.closest('label')?.textContent?.trim(),
      type: input.type,
      inputMode: input.inputMode,
      autocomplete: input.autocomplete,
    };
  });
  expect(field).toEqual({
    label: 'Email',
    type: 'text',
    inputMode: 'email',
    autocomplete: 'username',
  });
  await logIn(a.page, alice.email, PASSWORD);
});

it('plays the DM and mention sound as enable_sounds and notification_sound say', async () => {
  // The pitches of the notes the page plays, from its start: the real Web Audio, watched.
  await a.page.evaluateOnNewDocument(() => {
    const notes: number[] = [];
    Object.assign(window, { notes });
    // eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped, called on its node
    const start = OscillatorNode.prototype.start;
    OscillatorNode.prototype.start = function (this: OscillatorNode, when?: number) {
      notes.push(this.frequency.value);
      start.call(this, when);
    };
  });
  await api(alice, 'POST', '/mark_all_as_read');
  // Starred messages in view: none of what comes is in sight, which would need no sound.
  await visit(a.page, '#narrow/is/starred');
  const notes = () => a.page.evaluate(() => (window as unknown as { notes: number[] }).notes);
  let unread = 0;
  /** Bob writes; Alice's page has it once the unread count in its title says so. */
  const arrives = async (fields: Record<string, string>) => {
    await api(bob, 'POST', '/messages', { ...fields, content: `${fields.content} ${Date.now()}` });
    unread++;
    await a.page.waitForFunction(
      (n) => document.title.startsWith(`(${n}) `),
      { timeout: 10_000 },
      unread,
    );
  };
  const dm = { type: 'direct', to: JSON.stringify([alice.id]), content: 'a word' };

  await api(alice, 'PATCH', '/settings', { enable_sounds: 'true', notification_sound: 'ding' });
  await arrives(dm);
  await a.page.waitForFunction(() => (window as unknown as { notes: number[] }).notes.length > 0);
  expect(await notes()).toEqual([1568]);

  // Off: silent, for a direct message and a mention alike.
  await api(alice, 'PATCH', '/settings', { enable_sounds: 'false' });
  await arrives(dm);
  await arrives({ type: 'stream', to: CHANNEL, topic: 'a', content: '@**Alice Adams** look' });
  // "none" is silent too, with sounds on.
  await api(alice, 'PATCH', '/settings', { enable_sounds: 'true', notification_sound: 'none' });
  await arrives(dm);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await notes()).toEqual([1568]);

  // Zulip's own sound for a mention; a channel message without one follows the channels'
  // setting (off by default).
  await api(alice, 'PATCH', '/settings', { notification_sound: 'zulip' });
  await arrives({ type: 'stream', to: CHANNEL, topic: 'a', content: '@**Alice Adams** again' });
  await a.page.waitForFunction(() => (window as unknown as { notes: number[] }).notes.length > 1);
  await arrives({ type: 'stream', to: CHANNEL, topic: 'a', content: 'no mention' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await notes()).toEqual([1568, 880, 1320]);
  expect(a.problems).toEqual([]);
});

it('sends with Ctrl+Enter, or with Enter as enter_sends asks; Enter starts a line on touch', async () => {
  await openChannel(a.page);
  // Zulip's default: Enter starts a line, Ctrl+Enter sends.
  expect(
    await a.page.$eval('textarea[aria-label=Message]', (e) => e.getAttribute('placeholder')),
  ).toContain('Ctrl+Enter sends');
  await compose(a.page, 'one', 'keys');
  await a.page.keyboard.press('Enter');
  await a.page.keyboard.type('two');
  expect(await boxValue(a.page)).toBe('one\ntwo');
  await ctrlEnter(a.page);
  await seeMessage(a.page, 'two');
  expect(await a.page.$eval(await messageSelector(a.page, 'two'), (e) => e.textContent)).toMatch(
    /one\s*two/,
  );

  // "Press Enter to send", beside the Send button: the user's setting, kept by the server.
  await clickText(a.page, 'label.enter-sends', 'Press Enter to send');
  await a.page.waitForFunction(() =>
    document
      .querySelector('textarea[aria-label=Message]')
      ?.getAttribute('placeholder')
      ?.includes('Enter sends, Shift+Enter'),
  );
  await a.page.type('textarea[aria-label=Message]', 'three');
  await ctrlEnter(a.page);
  await a.page.keyboard.down('Shift');
  await a.page.keyboard.press('Enter');
  await a.page.keyboard.up('Shift');
  await a.page.keyboard.type('four');
  expect(await boxValue(a.page)).toBe('three\n\nfour');
  await a.page.keyboard.press('Enter');
  await seeMessage(a.page, 'four');
  expect(await boxValue(a.page)).toBe('');
  const { user_settings } = await api<{ user_settings: { enter_sends: boolean } }>(
    alice,
    'POST',
    '/register',
    { fetch_event_types: JSON.stringify(['user_settings']) },
  );
  expect(user_settings.enter_sends).toBe(true);

  // A phone, with enter_sends on: Enter starts a line, there is no such switch, and Ctrl+Enter
  // from a keyboard attached to it still sends.
  const phone = await openPage(browser, web.server.url);
  await phone.page.setViewport({
    width: 390,
    height: 844,
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
  });
  await logIn(phone.page, alice.email, PASSWORD);
  await openChannel(phone.page);
  expect(await phone.page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
  expect(await phone.page.$('label.enter-sends')).toBeNull();
  await phone.page.tap('textarea[aria-label=Message]');
  await phone.page.type('textarea[aria-label=Message]', 'five');
  await phone.page.keyboard.press('Enter');
  await phone.page.type('textarea[aria-label=Message]', 'six');
  expect(await boxValue(phone.page)).toMatch(/five\nsix$/);
  await ctrlEnter(phone.page);
  await seeMessage(phone.page, 'six');
  expect(phone.problems).toEqual([]);
  await phone.page.browserContext().close();
});

it("shows a message's edit history from its menu: who changed what, and when", async () => {
  const { id } = await api<{ id: number }>(alice, 'POST', '/messages', {
    type: 'stream',
    to: CHANNEL,
    topic: 'roadmap',
    content: 'The plan for **spring** is ready',
  });
  await api(alice, 'PATCH', `/messages/${id}`, { content: 'The plan for **spring** is final' });
  await api(bob, 'PATCH', `/messages/${id}`, {
    topic: 'roadmap 2027',
    propagate_mode: 'change_one',
  });
  const plain = await api<{ id: number }>(alice, 'POST', '/messages', {
    type: 'stream',
    to: CHANNEL,
    topic: 'roadmap 2027',
    content: 'never edited',
  });
  await openChannel(a.page);
  await seeMessage(a.page, 'never edited');
  // A message never edited has no history to show.
  await clickInList(
    a.page,
    `.message[data-message-id="${plain.id}"] button[aria-label="Message actions"]`,
  );
  await a.page.waitForSelector('.popover [role=menuitem]');
  const items = await a.page.$$eval('.popover [role=menuitem]', (els) =>
    els.map((e) => e.textContent),
  );
  expect(items).not.toContain('View edit history');
  await a.page.keyboard.press('Escape');

  const message = `.message[data-message-id="${id}"]`;
  await clickInList(a.page, `${message} button[aria-label="Message actions"]`);
  await clickText(a.page, '.popover [role=menuitem]', 'View edit history');
  await a.page.waitForSelector('.edit-history[role=dialog] .version:nth-child(3)');
  const versions = await a.page.$$eval('.edit-history .version', (els) =>
    els.map((e) => ({
      meta: e.querySelector('.version-meta strong')?.textContent,
      move: e.querySelector('.version-move')?.textContent ?? null,
      inserted: [...e.querySelectorAll('ins')].map((x) => x.textContent),
      deleted: [...e.querySelectorAll('del')].map((x) => x.textContent),
      text: e.querySelector('.content')?.textContent ?? null,
    })),
  );
  expect(versions).toEqual([
    {
      meta: 'Posted by Alice Adams',
      move: null,
      inserted: [],
      deleted: [],
      text: 'The plan for spring is ready',
    },
    {
      meta: 'Edited by Alice Adams',
      move: null,
      inserted: ['final'],
      deleted: ['ready'],
      text: expect.stringContaining('spring') as string,
    },
    {
      meta: 'Moved by Bob Brown',
      move: 'Topic: roadmap → roadmap 2027',
      inserted: [],
      deleted: [],
      text: null,
    },
  ]);
  expect(await a.page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
  await screenshot(a.page, SHOTS, 'edit-history');
  expect(await accessibilityViolations(a.page)).toEqual([]);
  await a.page.keyboard.press('Escape');
  await a.page.waitForFunction(() => !document.querySelector('.edit-history'));
  await a.page.waitForFunction(
    (selector) => document.activeElement === document.querySelector(selector),
    {},
    `${message} button[aria-label="Message actions"]`,
  );
  expect(a.problems).toEqual([]);
});
