/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { Role } from '../../libs/domain/users/roles';
import {
  accessibilityViolations,
  apiAs,
  clickText,
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
 * The web client's views beside conversations (issue 43, part B), with three people in three
 * browsers against the one-process server: search with Zulip's operators and suggestions, the
 * inbox, recent conversations and the combined feed, channels, muting and following, people,
 * profile cards and statuses, personal settings, and the organization's administration.
 * Writes docs/screenshots/views-*.png.
 */
jest.setTimeout(120_000);

const SHOTS = path.join(__dirname, '../../docs/screenshots');

let web: WebServer;
let browser: Browser;
let alice: Person;
let bob: Person;
let carol: Person;
let a: Watched;
let b: Watched;
const run = Date.now().toString(36);

const api = <T = Record<string, unknown>>(
  who: Person,
  method: string,
  route: string,
  form: Record<string, string> = {},
) => apiAs<T>(web.server.url, who, method, route, form);

const post = (who: Person, to: string, topic: string, content: string) =>
  api(who, 'POST', '/messages', { type: 'stream', to, topic, content });

/** The texts of the messages on screen, once some are (the list redraws as it settles). */
async function shownMessages(page: Page): Promise<string[]> {
  await page.waitForFunction(() => document.querySelectorAll('.message .content').length > 0);
  return page.$$eval('.message .content', (els) => els.map((e) => e.textContent ?? ''));
}

async function waitText(page: Page, selector: string, text: string, timeout = 20_000) {
  await page.waitForFunction(
    (sel, t) => [...document.querySelectorAll(sel)].some((e) => e.textContent?.includes(t)),
    { timeout },
    selector,
    text,
  );
}

async function search(page: Page, query: string) {
  await page.click('input[aria-label="Search messages"]', { count: 3 });
  await page.keyboard.press('Backspace');
  await page.type('input[aria-label="Search messages"]', query);
  await page.keyboard.press('Enter');
}

beforeAll(async () => {
  web = await startWebServer({
    people: [
      { fullName: 'Alice Adams', role: Role.OWNER },
      { fullName: 'Bob Brown' },
      { fullName: 'Carol Clark' },
    ],
  });
  [alice, bob, carol] = web.people;
  await post(bob, 'general', 'lunch', `pizza on friday ${run}`);
  await post(carol, 'general', 'deploy', `the deploy notes https://example.com/notes ${run}`);
  await api(bob, 'POST', '/messages', {
    type: 'direct',
    to: JSON.stringify([alice.id]),
    content: `secret handshake ${run}`,
  });
  browser = await launchBrowser();
  a = await openPage(browser, web.server.url);
  b = await openPage(browser, web.server.url);
  await logIn(a.page, alice.email, PASSWORD);
  await logIn(b.page, bob.email, PASSWORD);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

describe('search', () => {
  it('suggests operators, people and channels as one types, and narrows by sender', async () => {
    const box = 'input[aria-label="Search messages"]';
    await a.page.click(box);
    await a.page.type(box, 'sen');
    await waitText(a.page, '.search-suggestions [role=option]', 'sender:');
    await a.page.keyboard.press('ArrowDown');
    await a.page.keyboard.press('ArrowDown');
    const active = await a.page.$eval(
      '.search-suggestions [aria-selected=true]',
      (e) => e.textContent,
    );
    expect(active).toContain('sender:');
    await a.page.keyboard.press('Enter');
    expect(await a.page.$eval(box, (e) => (e as HTMLInputElement).value)).toBe('sender:');
    await a.page.type(box, 'Bo');
    await waitText(a.page, '.search-suggestions [role=option]', 'Sent by Bob Brown');
    await clickText(a.page, '.search-suggestions [role=option]', 'Sent by Bob Brown');
    await seeMessage(a.page, `pizza on friday ${run}`);
    await seeMessage(a.page, `secret handshake ${run}`);
    const texts = await shownMessages(a.page);
    expect(texts.some((x) => x.includes('deploy notes'))).toBe(false);
    expect(await a.page.evaluate(() => location.hash)).toContain('sender');
  });

  it('finds keywords, has:link, is:dm and channel with topic', async () => {
    await search(a.page, `pizza`);
    await seeMessage(a.page, `pizza on friday ${run}`);
    await a.page.waitForFunction(() => document.querySelectorAll('.message .content').length === 1);

    await search(a.page, 'has:link');
    await seeMessage(a.page, `deploy notes`);
    expect((await shownMessages(a.page)).every((x) => x.includes('https://'))).toBe(true);

    await search(a.page, 'is:dm');
    await seeMessage(a.page, `secret handshake ${run}`);
    expect((await shownMessages(a.page)).some((x) => x.includes('pizza'))).toBe(false);

    await search(a.page, 'channel:general topic:deploy');
    await seeMessage(a.page, `deploy notes`);
    expect((await shownMessages(a.page)).some((x) => x.includes('pizza'))).toBe(false);
    await search(a.page, '-topic:deploy channel:general');
    await seeMessage(a.page, `pizza on friday ${run}`);
    expect((await shownMessages(a.page)).some((x) => x.includes('deploy notes'))).toBe(false);
    // Seen only in search results (a keyword, a sender): still unread, as in Zulip. (is:dm, like
    // a channel and topic, holds whole conversations: seen there, messages are read.)
    const { messages } = await api<{ messages: { content: string }[] }>(alice, 'GET', '/messages', {
      anchor: 'newest',
      num_before: '50',
      num_after: '0',
      narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]),
    });
    expect(messages.map((m) => m.content).join(' ')).toContain(`pizza on friday ${run}`);
  });

  it("opens a sender's profile card from a message and lists what they sent", async () => {
    await search(a.page, 'channel:general topic:deploy');
    await seeMessage(a.page, 'deploy notes');
    // The sender's name is a button: reached and pressed with the keyboard.
    await a.page.evaluate((name) => {
      const sender = [...document.querySelectorAll<HTMLButtonElement>('.message button.sender')];
      sender.find((e) => e.textContent === name)!.focus();
    }, carol.fullName);
    await a.page.keyboard.press('Enter');
    await a.page.waitForSelector('.profile-card[role=dialog]');
    await waitText(a.page, '.profile-card', carol.email);
    await clickText(a.page, '.profile-card button', 'View messages sent');
    await seeMessage(a.page, 'deploy notes');
    expect(await a.page.$('.profile-card')).toBeNull();
    expect((await shownMessages(a.page)).some((x) => x.includes('pizza'))).toBe(false);
  });
});

describe('inbox, recent conversations and the feed', () => {
  it('the inbox lists unread conversations by channel and DM, live', async () => {
    // Unread: new messages in a channel and a direct conversation.
    await post(bob, 'general', 'lunch', `pasta on monday ${run}`);
    await api(bob, 'POST', '/messages', {
      type: 'direct',
      to: JSON.stringify([alice.id]),
      content: `another handshake ${run}`,
    });
    await b.page.evaluate(() => (location.hash = '#inbox'));
    await a.page.evaluate(() => (location.hash = '#inbox'));
    await waitText(a.page, '.inbox', 'lunch');
    await waitText(a.page, '.inbox', bob.fullName);
    await post(bob, 'general', 'standup', `standup at ten ${run}`);
    await waitText(a.page, '.inbox-row', 'standup');
    await screenshot(a.page, SHOTS, 'views-inbox');
    await clickText(a.page, '.inbox-row .link-button', 'standup');
    await seeMessage(a.page, `standup at ten ${run}`);
    // Read now: gone from the inbox.
    await a.page.evaluate(() => (location.hash = '#inbox'));
    await waitText(a.page, '.inbox', 'lunch');
    await a.page.waitForFunction(
      () =>
        ![...document.querySelectorAll('.inbox-row')].some((e) =>
          e.textContent?.includes('standup'),
        ),
    );
  });

  it('recent conversations show topics with participants and unread counts', async () => {
    await a.page.evaluate(() => (location.hash = '#recent'));
    await waitText(a.page, '.recent-table', 'deploy');
    await waitText(a.page, '.recent-table', 'lunch');
    const row = await a.page.$$eval('.recent-table tbody tr', (rows) =>
      rows.map((r) => r.textContent ?? '').find((x) => x.includes('lunch')),
    );
    expect(row).toContain('#general');
    const people = await a.page.$$eval('.recent-table tbody tr', (rows) =>
      rows
        .find((r) => r.textContent?.includes('deploy'))
        ?.querySelector('.recent-people [role=img]')
        ?.getAttribute('aria-label'),
    );
    expect(people).toBe(carol.fullName);
    await post(carol, 'general', 'retro', `retro notes ${run}`);
    await waitText(a.page, '.recent-table', 'retro');
    await screenshot(a.page, SHOTS, 'views-recent');
  });

  it('the combined feed shows every conversation', async () => {
    await clickText(a.page, '.view-links .nav-item', 'Combined feed');
    await seeMessage(a.page, `retro notes ${run}`);
    await seeMessage(a.page, `pizza on friday ${run}`);
  });
});

describe('channels', () => {
  it('one creates a channel, another browses all channels and joins it', async () => {
    await a.page.evaluate(() => (location.hash = '#channels'));
    await clickText(a.page, 'button', 'Create channel');
    await a.page.waitForSelector('form[aria-label="Create a channel"]');
    await a.page.type(
      'form[aria-label="Create a channel"] input:not([type=radio])',
      `plans-${run}`,
    );
    await a.page.type('form[aria-label="Create a channel"] textarea', 'Where we plan');
    await clickText(a.page, 'form[aria-label="Create a channel"] button', 'Create');
    // Created and subscribed: its settings open.
    await a.page.waitForSelector('form[aria-label="Channel settings"]');
    await waitText(a.page, '.sidebar .nav-item', `plans-${run}`);

    await b.page.evaluate(() => (location.hash = '#channels'));
    await clickText(b.page, '.tabs button', 'All channels');
    await waitText(b.page, '.channel-row', `plans-${run}`);
    await b.page.click(`button[aria-label="Join #plans-${run}"]`);
    await waitText(b.page, '.sidebar .nav-item', `plans-${run}`);
    await b.page.waitForSelector(`button[aria-label="Leave #plans-${run}"]`);
  });

  it('an administrator changes the channel; a subscriber sets colour, muting and notifications', async () => {
    const form = 'form[aria-label="Channel settings"]';
    await a.page.click(`${form} textarea`, { count: 3 });
    await a.page.keyboard.press('Backspace');
    await a.page.type(`${form} textarea`, `Plans for ${run}`);
    await clickText(a.page, `${form} label.radio`, 'Private, shared history');
    await clickText(a.page, `${form} button`, 'Save changes');
    await waitText(b.page, '.channel-row', `Plans for ${run}`);
    await waitText(b.page, '.channel-row', 'private');

    await clickText(b.page, '.channel-row .link-button', `plans-${run}`);
    await b.page.waitForSelector('fieldset.settings-form');
    await clickText(b.page, 'fieldset.settings-form label.check', 'Mute the channel');
    await clickText(b.page, 'fieldset.settings-form label.check', 'Desktop notifications');
    const subs = async () =>
      (
        await api<{
          subscriptions: {
            name: string;
            is_muted: boolean;
            desktop_notifications: boolean | null;
          }[];
        }>(bob, 'GET', '/users/me/subscriptions')
      ).subscriptions.find((s) => s.name === `plans-${run}`);
    for (let i = 0; i < 50 && !(await subs())?.is_muted; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await subs())?.is_muted).toBe(true);
    expect((await subs())?.desktop_notifications).toBe(true);
    await screenshot(b.page, SHOTS, 'views-channels');
  });
});

describe('muting and following', () => {
  it('a topic muted leaves the inbox; followed, it is marked', async () => {
    await post(carol, 'general', 'noise', `noisy chatter ${run}`);
    await post(carol, 'general', 'important', `important news ${run}`);
    await b.page.evaluate(() => (location.hash = '#inbox'));
    await waitText(b.page, '.inbox-row', 'noise');
    await clickText(b.page, '.inbox-row .link-button', 'noise');
    await seeMessage(b.page, `noisy chatter ${run}`);
    await clickText(b.page, '.narrow-actions button', 'Mute topic');
    await waitText(b.page, '.narrow-actions button', 'Unmute topic');
    await post(carol, 'general', 'noise', `more noise ${run}`);
    await b.page.evaluate(() => (location.hash = '#inbox'));
    await waitText(b.page, '.inbox-row', 'important');
    expect(
      await b.page.$$eval('.inbox-row', (rows) =>
        rows.some((r) => r.textContent?.includes('noise')),
      ),
    ).toBe(false);

    await b.page.evaluate(() => (location.hash = '#recent'));
    await waitText(b.page, '.recent-table', 'important');
    await clickText(b.page, '.recent-table .link-button', 'important');
    await clickText(b.page, '.narrow-actions button', 'Follow topic');
    await waitText(b.page, '.narrow-actions button', 'Unfollow topic');
    // In the inbox before the message comes: arriving in the open topic, it would be read there.
    await b.page.evaluate(() => (location.hash = '#inbox'));
    await b.page.waitForSelector('.view-body.inbox');
    await post(carol, 'general', 'important', `more news ${run}`);
    await b.page.waitForSelector('.inbox-row .followed-mark');
  });

  it('a muted person is marked in the people list; the feed leaves out muted people and topics', async () => {
    await a.page.evaluate(() => (location.hash = '#people'));
    await clickText(a.page, '.person-row .link-button', carol.fullName);
    await clickText(a.page, '.profile-card button', 'Mute user');
    await waitText(a.page, '.profile-card button', 'Unmute user');
    await a.page.keyboard.press('Escape');
    await a.page.waitForFunction(() => !document.querySelector('.profile-card'));
    await waitText(a.page, '.person-row', 'muted');
    // The combined feed leaves out what Carol says, and the topic Bob muted, as Zulip's does.
    await post(carol, 'general', 'lunch', `muted chatter ${run}`);
    await post(bob, 'general', 'lunch', `after the mute ${run}`);
    /** The feed's newest messages on screen, once the last one shows (scrolled to the end). */
    const feedEnd = async (page: Page) => {
      await page.evaluate(() => (location.hash = '#feed'));
      await page.waitForFunction(
        (last) => {
          const list = document.querySelector('.messages');
          if (list) list.scrollTop = list.scrollHeight;
          return [...document.querySelectorAll('.message .content')].some((e) =>
            e.textContent?.includes(last),
          );
        },
        { timeout: 15_000, polling: 200 },
        `after the mute ${run}`,
      );
      return shownMessages(page);
    };
    const aliceSees = await feedEnd(a.page);
    expect(aliceSees.filter((x) => x.includes('muted chatter'))).toEqual([]);
    const bobSees = await feedEnd(b.page);
    expect(bobSees).toEqual(expect.arrayContaining([expect.stringContaining('muted chatter')]));
    expect(bobSees.filter((x) => x.includes('more noise'))).toEqual([]);
    await a.page.evaluate(() => (location.hash = '#people'));
  });
});

describe('people, profile cards, presence and status', () => {
  it('shows everyone with presence; a status set by one shows to another', async () => {
    await b.page.evaluate(() => (location.hash = '#settings/status'));
    await clickText(b.page, 'form[aria-label="Your status"] button', 'In a meeting');
    await clickText(b.page, 'form[aria-label="Your status"] button', 'Save status');
    await waitText(a.page, '.person-row', 'In a meeting');
    // Both have the page open: active.
    const bobDot = await a.page.$$eval(
      '.person-row',
      (rows, name) =>
        rows
          .find((r) => r.textContent?.includes(name))
          ?.querySelector('.presence-dot')
          ?.getAttribute('aria-label'),
      bob.fullName,
    );
    expect(bobDot).toBe('Active');
    await screenshot(a.page, SHOTS, 'views-people');
    await clickText(a.page, '.person-row .link-button', bob.fullName);
    await waitText(a.page, '.profile-card', 'In a meeting');
    await waitText(a.page, '.profile-card', 'Member');
    await clickText(a.page, '.profile-card button', 'Send direct message');
    await seeMessage(a.page, `secret handshake ${run}`);
  });
});

describe('personal settings', () => {
  it('changes name, theme and time format, notifications and avatar', async () => {
    const times = (page: Page, form: string) =>
      page.waitForFunction(
        (f) => {
          const shown = [...document.querySelectorAll('.message header time')].map(
            (e) => e.textContent ?? '',
          );
          return shown.length > 0 && shown.every((x) => new RegExp(f).test(x));
        },
        { timeout: 10_000 },
        form,
      );
    await b.page.evaluate(() => (location.hash = '#feed'));
    await times(b.page, '^\\d{1,2}:\\d{2}\\s?[AP]M$');
    await b.page.evaluate(() => (location.hash = '#settings/profile'));
    const name = 'form[aria-label=Profile] input';
    await b.page.click(name, { count: 3 });
    await b.page.type(name, 'Robert Brown');
    await clickText(b.page, 'form[aria-label=Profile] button', 'Save name');
    await waitText(a.page, '.sidebar .nav-item', 'Robert Brown');

    await b.page.evaluate(() => (location.hash = '#settings/display'));
    await b.page.select('fieldset.settings-form select', '2');
    await b.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await screenshot(b.page, SHOTS, 'views-settings-dark');
    await b.page.select('fieldset.settings-form label:nth-of-type(2) select', '24');
    // Message times follow the setting: "17:05", not "5:05 PM".
    await b.page.evaluate(() => (location.hash = '#feed'));
    await times(b.page, '^\\d{2}:\\d{2}$');
    await b.page.evaluate(() => (location.hash = '#settings/notifications'));
    await clickText(b.page, 'label.check', 'Email when offline');
    const settings = async () =>
      (await api<{ user: unknown }>(bob, 'POST', '/register', {
        fetch_event_types: '["user_settings"]',
      })) as unknown as {
        user_settings: Record<string, unknown>;
      };
    for (
      let i = 0;
      i < 50 && (await settings()).user_settings.enable_offline_email_notifications;
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    const s = (await settings()).user_settings;
    expect(s.enable_offline_email_notifications).toBe(false);
    expect(s.twenty_four_hour_time).toBe(true);
    expect(s.color_scheme).toBe(2);
  });

  it('refuses a wrong current password and changes it with the right one', async () => {
    await b.page.evaluate(() => (location.hash = '#settings/account'));
    const form = 'form[aria-label=Password]';
    await b.page.type(`${form} input[autocomplete=current-password]`, 'not my password');
    await b.page.type(`${form} input[autocomplete=new-password]`, 'a brand new long password 42');
    await clickText(b.page, `${form} button`, 'Change password');
    await b.page.waitForSelector(`${form} [role=alert]`);
    await b.page.click(`${form} input[autocomplete=current-password]`, { count: 3 });
    await b.page.type(`${form} input[autocomplete=current-password]`, PASSWORD);
    await clickText(b.page, `${form} button`, 'Change password');
    await waitText(b.page, `${form} [role=status]`, 'Password changed.');
  });
});

describe('organization administration', () => {
  it('invites by email and by link, and revokes', async () => {
    await a.page.evaluate(() => (location.hash = '#organization/invitations'));
    const form = 'form[aria-label="Invite people"]';
    await a.page.waitForSelector(form);
    await a.page.type(`${form} textarea`, `newcomer-${run}@example.com`);
    await clickText(a.page, `${form} button`, 'Send invitations');
    await waitText(a.page, '.invite-row', `newcomer-${run}@example.com`);
    await clickText(a.page, `${form} button`, 'Create an invitation link');
    await a.page.waitForSelector('.invite-link');
    const link = await a.page.$eval('.invite-link', (e) => (e as HTMLInputElement).value);
    expect(link).toMatch(/^http/);
    await waitText(a.page, '.invite-row', 'Invitation link');
    await a.page.click(`button[aria-label="Revoke the invitation to newcomer-${run}@example.com"]`);
    await a.page.waitForFunction(
      (email) =>
        ![...document.querySelectorAll('.invite-row')].some((r) => r.textContent?.includes(email)),
      {},
      `newcomer-${run}@example.com`,
    );
  });

  it('changes a role, deactivates and reactivates a user', async () => {
    await a.page.evaluate(() => (location.hash = '#organization/users'));
    await a.page.waitForSelector(`select[aria-label="Role of ${carol.fullName}"]`);
    await a.page.select(`select[aria-label="Role of ${carol.fullName}"]`, '300');
    const role = async () =>
      (
        await api<{ user: { role: number; is_active: boolean } }>(
          alice,
          'GET',
          `/users/${carol.id}`,
        )
      ).user;
    for (let i = 0; i < 50 && (await role()).role !== 300; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await role()).role).toBe(300);
    await a.page.click(`button[aria-label="Deactivate ${carol.fullName}"]`);
    await a.page.waitForSelector(`button[aria-label="Reactivate ${carol.fullName}"]`);
    expect((await role()).is_active).toBe(false);
    await a.page.click(`button[aria-label="Reactivate ${carol.fullName}"]`);
    await a.page.waitForSelector(`button[aria-label="Deactivate ${carol.fullName}"]`);
    expect((await role()).is_active).toBe(true);
  });

  it('renames the organization and changes a main setting', async () => {
    await a.page.evaluate(() => (location.hash = '#organization/organization'));
    const form = 'form[aria-label="Organization profile"]';
    await a.page.click(`${form} input`, { count: 3 });
    await a.page.type(`${form} input`, 'Acme Together');
    await clickText(a.page, `${form} button`, 'Save changes');
    await waitText(b.page, '.realm-name', 'Acme Together');
    await clickText(a.page, 'label.check', 'Invitations are required to join');
    // The organization's icon: uploaded by the owner, in everyone's top bar; then the default.
    // The browser reads the file when it sends it, after the change event: the file stays
    // until the icon is shown.
    const dir = mkdtempSync(path.join(tmpdir(), 'web-icon-'));
    const topIcon = () =>
      b.page.evaluate(() => {
        const img = document.querySelector<HTMLImageElement>('.topbar img.realm-icon');
        return img?.complete && img.naturalWidth > 0 ? new URL(img.src).pathname : null;
      });
    try {
      const file = path.join(dir, 'icon.png');
      writeFileSync(file, pngImage());
      const input = await a.page.$('.avatar-edit input[type=file]');
      await input!.uploadFile(file);
      await b.page.waitForFunction(
        () => document.querySelector<HTMLImageElement>('.topbar img.realm-icon')?.naturalWidth,
        { timeout: 10_000 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await topIcon()).toMatch(/^\/user_avatars\/\d+\/realm\/icon\.png$/);
    await a.page.waitForSelector('img.realm-icon-preview');
    await screenshot(a.page, SHOTS, 'views-organization');
    await clickText(a.page, '.avatar-edit button', 'Use the default');
    await b.page.waitForFunction(() => !document.querySelector('.topbar img.realm-icon'), {
      timeout: 10_000,
    });
  });

  it('a member has no administration link', async () => {
    expect(
      await b.page.$$eval('.view-links .nav-item', (els) => els.map((e) => e.textContent)),
    ).not.toContain('Organization');
  });
});

describe('keyboard, phone size and accessibility', () => {
  const VIEWS = [
    '#feed',
    '#narrow/search/pizza',
    '#inbox',
    '#recent',
    '#channels',
    '#people',
    '#settings/profile',
    '#settings/account',
    '#settings/display',
    '#settings/notifications',
    '#settings/status',
    '#organization/organization',
    '#organization/users',
    '#organization/invitations',
  ];

  const DARK_SHOTS: Record<string, string> = {
    '#inbox': 'inbox',
    '#recent': 'recent',
    '#channels': 'channels',
    '#people': 'people',
    '#settings/notifications': 'settings',
    '#organization/users': 'organization',
  };

  it('searches with the keyboard alone', async () => {
    await a.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await a.page.keyboard.press('/');
    expect(await a.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Search messages',
    );
    await a.page.keyboard.type('pizza');
    await a.page.keyboard.press('Enter');
    await seeMessage(a.page, `pizza on friday ${run}`);
  });

  it('has no serious accessibility problem on any view, in both themes', async () => {
    for (const theme of ['light', 'dark']) {
      for (const hash of VIEWS) {
        await a.page.evaluate((h) => (location.hash = h), hash);
        await a.page.waitForSelector('.narrow-title');
        await a.page.evaluate((th) => (document.documentElement.dataset.theme = th), theme);
        expect([hash, theme, await accessibilityViolations(a.page)]).toEqual([hash, theme, []]);
        const shot = DARK_SHOTS[hash];
        if (theme === 'dark' && shot) await screenshot(a.page, SHOTS, `views-${shot}-dark`);
      }
    }
    await a.page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
  }, 600_000);

  it('at 390x844 every control of the views is at least 24x24 px', async () => {
    await a.page.setViewport({ width: 390, height: 844 });
    for (const hash of VIEWS) {
      await a.page.evaluate((h) => (location.hash = h), hash);
      await a.page.waitForSelector('.narrow-title');
      const small = await a.page.$$eval(
        '.main button, .main input, .main select, .main a[href], .main [role=option]',
        (els) =>
          els
            .filter((e) => {
              const r = e.getBoundingClientRect();
              const hidden = r.width === 0 && r.height === 0;
              return !hidden && !e.closest('.visually-hidden') && (r.width < 24 || r.height < 24);
            })
            .map(
              (e) => `${e.tagName} ${e.getAttribute('aria-label') ?? e.textContent?.slice(0, 30)}`,
            ),
      );
      expect([hash, small]).toEqual([hash, []]);
    }
    await a.page.evaluate(() => (location.hash = '#inbox'));
    await screenshot(a.page, SHOTS, 'views-phone-inbox');
    await a.page.evaluate(() => (location.hash = '#channels'));
    await screenshot(a.page, SHOTS, 'views-phone-channels');
    await a.page.setViewport({ width: 1200, height: 800 });
  });

  it('no script errors or CSP refusals', () => {
    expect(a.problems).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
