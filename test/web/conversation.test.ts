/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import path from 'node:path';
import type { Browser, HTTPRequest, KeyInput, Page } from 'puppeteer-core';
import {
  clickInList,
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
 * The web client as a team lives in it (issue 43): three people in three browser contexts of one
 * chromium, against one `all` process. The race of a message arriving while a conversation's
 * history loads, a lost event queue, typing in channels, a conversation's grouping, emoji, rich
 * content, the keyboard, drafts, notifications and the phone. Writes screenshots of the main
 * views, in both themes, to docs/screenshots.
 */
jest.setTimeout(240_000);

const SCREENSHOTS = path.join(__dirname, '../../docs/screenshots');

let web: WebServer;
let browser: Browser;
let alice: Person;
let bob: Person;
let carol: Person;
let a: Watched;
let b: Watched;
let channelId: number;
const CHANNEL = 'design';
/** The event queues Alice's page polls, as it asks for them. */
const alicesQueues: string[] = [];

const api = <T = Record<string, unknown>>(
  who: Person,
  method: string,
  route: string,
  form: Record<string, string> = {},
) => apiAs<T>(web.server.url, who, method, route, form);

const say = async (who: Person, topic: string, content: string) =>
  (
    await api<{ id: number }>(who, 'POST', '/messages', {
      type: 'stream',
      to: CHANNEL,
      topic,
      content,
    })
  ).id;

/** Opens an address of the page and waits until it is registered (the sidebar shows). */
async function visit(page: Page, hash: string): Promise<void> {
  await page.goto(`${web.server.url}/${hash}`);
  await page.waitForSelector('.sidebar .nav-item', { timeout: 20_000 });
}

/** Waits for a message anywhere in the list: scrolled to the top first (rows off screen are not drawn). */
async function seeEarlier(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (t) => {
      const list = document.querySelector('.messages');
      if (list) list.scrollTop = 0;
      return [...document.querySelectorAll('.message .content')].some((e) =>
        e.textContent?.includes(t),
      );
    },
    { timeout: 15_000, polling: 200 },
    text,
  );
}

/** Waits for a new message: the list scrolled to its end first. */
async function seeNew(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (t) => {
      const list = document.querySelector('.messages');
      if (list) list.scrollTop = list.scrollHeight;
      return [...document.querySelectorAll('.message .content')].some((e) =>
        e.textContent?.includes(t),
      );
    },
    { timeout: 15_000, polling: 200 },
    text,
  );
}

/** The `#design` item of a page's sidebar: its unread count, or 0. */
const channelUnread = (page: Page) =>
  page.evaluate((name) => {
    const item = [...document.querySelectorAll('.sidebar .nav-item')].find((e) =>
      e.textContent?.includes(`# ${name}`),
    );
    return Number(item?.querySelector('.unread')?.textContent ?? 0);
  }, CHANNEL);

beforeAll(async () => {
  web = await startWebServer({
    people: [{ fullName: 'Alice Adams' }, { fullName: 'Bob Brown' }, { fullName: 'Carol Chen' }],
    enterSends: true,
  });
  [alice, bob, carol] = web.people;
  await api(alice, 'POST', '/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: CHANNEL, description: 'How things look' }]),
    principals: JSON.stringify([alice.email, bob.email, carol.email]),
  });
  const { stream_id } = await api<{ stream_id: number }>(alice, 'GET', '/get_stream_id', {
    stream: CHANNEL,
  });
  channelId = stream_id;
  // A morning's conversation, read by Alice.
  const lines: [Person, string, string][] = [
    [bob, 'launch plan', 'Morning! The **launch** checklist is in the doc :tada:'],
    [bob, 'launch plan', 'Two things left: the banner, and the emails.'],
    [carol, 'launch plan', 'I can take the banner. Draft by noon?'],
    [alice, 'launch plan', 'Perfect, thanks Carol :+1:'],
    [
      carol,
      'colour tokens',
      'New tokens:\n\n| name | light | dark |\n|---|---|---|\n| bg | #f7f7f8 | #17191c |',
    ],
    [bob, 'colour tokens', '```ts\nconst accent = tokens.get("accent"); // shared\n```'],
    [carol, 'colour tokens', 'Contrast check: $$\\frac{L_1 + 0.05}{L_2 + 0.05} \\geq 4.5$$'],
    [alice, 'colour tokens', '```spoiler The answer\nIt passes, 7.2:1\n```'],
  ];
  for (const [who, topic, content] of lines) await say(who, topic, content);
  await api(alice, 'POST', '/mark_all_as_read');
  browser = await launchBrowser();
  a = await openPage(browser, web.server.url);
  b = await openPage(browser, web.server.url);
  a.page.on('request', (req) => {
    const queue = /\/json\/events\?.*queue_id=([^&]+)/.exec(req.url());
    if (queue) alicesQueues.push(decodeURIComponent(queue[1]));
  });
  await logIn(a.page, alice.email, PASSWORD);
  await logIn(b.page, bob.email, PASSWORD);
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

describe('the web client, as a team uses it', () => {
  it('keeps a message that arrives while the history loads, and counts it read once seen', async () => {
    // Alice's history answer is held back 1.5 s; Bob writes meanwhile.
    await a.page.setRequestInterception(true);
    let held = 0;
    const hold = (req: HTTPRequest) => {
      if (req.isInterceptResolutionHandled()) return;
      if (req.url().includes('/json/messages?') && req.url().includes('first_unread')) {
        held++;
        setTimeout(() => void req.continue(), 1500);
      } else void req.continue();
    };
    a.page.on('request', hold);
    try {
      await clickText(a.page, '.sidebar .nav-item', `# ${CHANNEL}`);
      await a.page.waitForFunction(() => document.querySelector('.messages.empty'));
      const live = `arrived while loading ${Date.now()}`;
      const id = await say(bob, 'launch plan', live);
      await seeMessage(a.page, live);
      // The history comes after it, and it stays, in order, after the history.
      await seeMessage(a.page, 'Draft by noon?');
      await new Promise((r) => setTimeout(r, 300));
      await seeMessage(a.page, live, 1000);
      const order = await a.page.$$eval('.message', (els) =>
        els.map((e) => Number(e.getAttribute('data-message-id'))),
      );
      expect(order).toEqual([...order].sort((x, y) => x - y));
      expect(order).toContain(id);
      expect(held).toBe(1);
      // Seen on screen: read in the sidebar and on the server.
      await a.page.waitForFunction(
        (name) =>
          ![...document.querySelectorAll('.sidebar .nav-item')].some(
            (e) => e.textContent?.includes(`# ${name}`) && e.querySelector('.unread'),
          ),
        { timeout: 5_000 },
        CHANNEL,
      );
      const { message } = await api<{ message: { flags: string[] } }>(
        alice,
        'GET',
        `/messages/${id}`,
      );
      expect(message.flags).toContain('read');
    } finally {
      a.page.off('request', hold);
      await a.page.setRequestInterception(false);
    }
  });

  it('a message that arrives while another conversation loads counts as unread there', async () => {
    await a.page.setRequestInterception(true);
    const hold = (req: HTTPRequest) => {
      if (req.isInterceptResolutionHandled()) return;
      if (req.url().includes('/json/messages?') && req.url().includes('first_unread'))
        setTimeout(() => void req.continue(), 1500);
      else void req.continue();
    };
    a.page.on('request', hold);
    try {
      await clickText(a.page, '.sidebar .nav-item', bob.fullName);
      const elsewhere = `in the channel while alice loads a DM ${Date.now()}`;
      await say(carol, 'launch plan', elsewhere);
      await a.page.waitForFunction(() => document.querySelector('.messages'));
      await a.page.waitForFunction(
        (name) =>
          [...document.querySelectorAll('.sidebar .nav-item')].some(
            (e) =>
              e.textContent?.includes(`# ${name}`) &&
              e.querySelector('.unread')?.textContent === '1',
          ),
        { timeout: 5_000 },
        CHANNEL,
      );
    } finally {
      a.page.off('request', hold);
      await a.page.setRequestInterception(false);
    }
    // Back in the channel (cached, and current): the message is there and gets read.
    await clickText(a.page, '.sidebar .nav-item', `# ${CHANNEL}`);
    await seeMessage(a.page, 'in the channel while alice loads a DM');
    await a.page.waitForFunction(
      (name) =>
        ![...document.querySelectorAll('.sidebar .nav-item')].some(
          (e) => e.textContent?.includes(`# ${name}`) && e.querySelector('.unread'),
        ),
      { timeout: 5_000 },
      CHANNEL,
    );
    expect(await channelUnread(a.page)).toBe(0);
  });

  it('after its event queue is lost, registers again and catches up without reloading', async () => {
    await a.page.evaluate(() => {
      (window as unknown as { stillHere: boolean }).stillHere = true;
    });
    const queue = alicesQueues.at(-1);
    expect(queue).toBeTruthy();
    const edited = await say(bob, 'launch plan', 'a line bob will edit');
    await seeMessage(a.page, 'a line bob will edit');
    // Away (the page, kept in the back/forward cache, ends its poll) while the queue goes.
    await a.page.goto('about:blank');
    await api(alice, 'DELETE', '/events', { queue_id: queue! });
    const missed = `sent while alice had no queue ${Date.now()}`;
    await say(bob, 'launch plan', missed);
    await api(bob, 'PATCH', `/messages/${edited}`, { content: 'a line bob edited meanwhile' });
    await a.page.goBack();
    await seeNew(a.page, missed);
    await seeNew(a.page, 'a line bob edited meanwhile');
    await a.page.waitForFunction(() => !document.querySelector('.reconnecting'), {
      timeout: 30_000,
    });
    // The same page (no reload), and live on its new queue.
    expect(
      await a.page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere),
    ).toBe(true);
    const after = `after the new queue ${Date.now()}`;
    await say(bob, 'launch plan', after);
    await seeNew(a.page, after);
  });

  it('shows who is typing in a channel topic', async () => {
    for (const { page } of [a, b]) {
      await page.goto(`${web.server.url}/#narrow/channel/${channelId}/topic/launch.20plan`);
      await seeMessage(page, 'Draft by noon?');
      // Registered (its queue exists): the sidebar shows.
      await page.waitForSelector('.sidebar .nav-item');
    }
    await b.page.click('textarea[aria-label=Message]');
    await b.page.type('textarea[aria-label=Message]', 'typing something');
    await a.page.waitForFunction(
      (name) => document.querySelector('.typing')?.textContent?.includes(name),
      { timeout: 5_000 },
      bob.fullName,
    );
    await b.page.keyboard.press('Enter');
    await seeMessage(a.page, 'typing something');
  });

  it('groups messages under recipient bars, with sender lines collapsed and a date line', async () => {
    await visit(a.page, `#narrow/channel/${channelId}`);
    await seeEarlier(a.page, 'Draft by noon?');
    const shape = await a.page.evaluate(() => ({
      bars: [...document.querySelectorAll('.recipient-bar')].map((e) => e.textContent),
      dates: document.querySelectorAll('.date-line').length,
      continued: document.querySelectorAll('.message.continued').length,
      senders: document.querySelectorAll('.message header .sender').length,
      messages: document.querySelectorAll('.message').length,
    }));
    expect(shape.bars.some((t) => t?.includes('launch plan'))).toBe(true);
    expect(shape.bars.some((t) => t?.includes('colour tokens'))).toBe(true);
    expect(shape.dates).toBeGreaterThanOrEqual(1);
    // Bob's two first lines share one sender line.
    expect(shape.continued).toBeGreaterThanOrEqual(1);
    expect(shape.senders).toBeLessThan(shape.messages);
  });

  it('draws emoji from the sprite sheet, custom emoji, and reacts through the picker', async () => {
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(pngImage())], { type: 'image/png' }),
      'shipit.png',
    );
    const res = await fetch(`${web.server.url}/api/v1/realm/emoji/shipit`, {
      method: 'POST',
      headers: { Authorization: alice.auth },
      body: form,
    });
    expect(res.status).toBe(200);
    const stamp = `shipping ${Date.now()}`;
    const text = `Ship it :shipit: :rocket: ${stamp}`;
    await visit(a.page, `#narrow/channel/${channelId}/topic/launch.20plan`);
    await say(bob, 'launch plan', text);
    await seeNew(a.page, stamp);
    await a.page.waitForFunction(
      () => {
        const span = document.querySelector<HTMLElement>('.content span.emoji.emoji-1f680');
        const img = document.querySelector<HTMLImageElement>('.content img.emoji');
        if (!span || !img?.complete || !img.naturalWidth) return false;
        const style = getComputedStyle(span);
        return (
          style.backgroundImage.includes('/assets/') && span.getBoundingClientRect().width > 12
        );
      },
      { timeout: 10_000 },
    );
    // The sheet itself loads (from our origin).
    const sheet = await a.page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .some((e) => e.name.includes('/assets/') && e.name.endsWith('.png')),
    );
    expect(sheet).toBe(true);
    // A reaction found by searching the picker, seen by Bob.
    const row = await a.page.evaluate(
      (t) =>
        [...document.querySelectorAll('.message')]
          .find((e) => e.textContent?.includes(t))
          ?.getAttribute('data-message-id'),
      stamp,
    );
    await clickInList(
      a.page,
      `.message[data-message-id="${row}"] button[aria-label="Add reaction"]`,
    );
    await a.page.waitForSelector('.emoji-picker input');
    await a.page.type('.emoji-picker input', 'tad');
    const tada = '.emoji-picker .choices button[aria-label="tada"]';
    await a.page.waitForSelector(tada);
    // The picker of the list's last message floats above the list, inside the window: the
    // mouse reaches it where the pointer is, not the list under it.
    const hit = await a.page.$eval(tada, (e) => {
      const r = e.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      return {
        inWindow: r.top >= 0 && r.bottom <= innerHeight,
        reached: e.contains(document.elementFromPoint(x, y)),
      };
    });
    expect(hit).toEqual({ inWindow: true, reached: true });
    expect(await accessibilityViolations(a.page)).toEqual([]);
    await a.page.click(tada);
    await a.page.waitForFunction(() => !document.querySelector('.emoji-picker'));
    await visit(b.page, `#narrow/channel/${channelId}/topic/launch.20plan`);
    await b.page.waitForSelector(
      `.message[data-message-id="${row}"] .reaction .emoji.emoji-1f389`,
      { timeout: 10_000 },
    );
  });

  it('shows math, tables, spoilers, highlighted code and images in a viewer', async () => {
    await visit(a.page, `#narrow/channel/${channelId}/topic/colour.20tokens`);
    await seeEarlier(a.page, 'Contrast check');
    // KaTeX's stylesheet hides the MathML copy: the formula shows once.
    await a.page.waitForFunction(
      () => {
        const mathml = document.querySelector('.content .katex-mathml');
        return mathml && getComputedStyle(mathml).position === 'absolute';
      },
      { timeout: 10_000 },
    );
    const looks = await a.page.evaluate(() => {
      const td = document.querySelector('.content td')!;
      const keyword = document.querySelector('.codehilite .kd, .codehilite .k')!;
      const plain = document.querySelector('.codehilite pre')!;
      const spoiler = document.querySelector('.content .spoiler-content')!;
      return {
        border: getComputedStyle(td).borderTopWidth,
        keyword: getComputedStyle(keyword).color,
        plain: getComputedStyle(plain).color,
        spoiler: getComputedStyle(spoiler).display,
      };
    });
    expect(looks.border).toBe('1px');
    expect(looks.keyword).not.toBe(looks.plain);
    expect(looks.spoiler).toBe('none');
    await a.page.click('.content .spoiler-header');
    expect(
      await a.page.$eval('.content .spoiler-content', (e) => getComputedStyle(e).display),
    ).toBe('block');
    // KaTeX's fonts come from our origin.
    await a.page.waitForFunction(
      () =>
        performance
          .getEntriesByType('resource')
          .some((e) => e.name.startsWith(location.origin) && /KaTeX_.*\.woff2/.test(e.name)),
      { timeout: 10_000 },
    );
    await screenshot(a.page, SCREENSHOTS, 'rich-content');
    // An uploaded image opens in the viewer; Esc closes it.
    const upload = new FormData();
    upload.append(
      'file',
      new Blob([new Uint8Array(pngImage())], { type: 'image/png' }),
      'mockup.png',
    );
    const up = await fetch(`${web.server.url}/api/v1/user_uploads`, {
      method: 'POST',
      headers: { Authorization: carol.auth },
      body: upload,
    });
    const { url } = (await up.json()) as { url: string };
    await say(carol, 'colour tokens', `The mockup: [mockup.png](${url})`);
    const again = await fetch(`${web.server.url}/api/v1/user_uploads`, {
      method: 'POST',
      headers: { Authorization: carol.auth },
      body: upload,
    });
    const second = ((await again.json()) as { url: string }).url;
    await say(carol, 'colour tokens', `And the dark one: [mockup-dark.png](${second})`);
    await a.page.waitForFunction(
      () => {
        const imgs = [...document.querySelectorAll<HTMLImageElement>('.message_inline_image img')];
        return imgs.length === 2 && imgs.every((img) => img.complete && img.naturalWidth > 0);
      },
      { timeout: 10_000 },
    );
    await a.page.evaluate(() =>
      document.querySelector<HTMLElement>('.message_inline_image img')!.click(),
    );
    const viewer = () =>
      a.page.evaluate(() => {
        const img = document.querySelector<HTMLImageElement>('.lightbox img');
        return {
          src: img?.complete && img.naturalWidth > 0 ? new URL(img.src).pathname : null,
          count: document.querySelector('.lightbox-count')?.textContent,
          zoomed: !!document.querySelector('.lightbox-stage.zoomed'),
        };
      });
    await a.page.waitForFunction(
      () => document.querySelector<HTMLImageElement>('.lightbox img')?.naturalWidth,
      { timeout: 10_000 },
    );
    expect(await viewer()).toEqual({ src: url, count: '1 of 2', zoomed: false });
    expect(await accessibilityViolations(a.page)).toEqual([]);
    // The arrow keys step through the conversation's images; Z zooms to the actual size.
    await a.page.keyboard.press('ArrowRight');
    await a.page.waitForFunction(
      (u) => document.querySelector<HTMLImageElement>('.lightbox img')?.src.endsWith(u),
      { timeout: 10_000 },
      second,
    );
    await a.page.keyboard.press('z');
    await a.page.waitForFunction(
      () => document.querySelector<HTMLImageElement>('.lightbox img')?.naturalWidth,
      { timeout: 10_000 },
    );
    expect(await viewer()).toEqual({ src: second, count: '2 of 2', zoomed: true });
    await clickText(a.page, '.lightbox button', 'Zoom');
    await a.page.click('button[aria-label="Previous image"]');
    await a.page.waitForFunction(
      () => document.querySelector('.lightbox-count')?.textContent === '1 of 2',
    );
    await a.page.keyboard.press('Escape');
    await a.page.waitForFunction(() => !document.querySelector('.lightbox'));
  });

  it('reads and replies with the keyboard; Esc keeps the draft; a reload restores it', async () => {
    await visit(a.page, `#narrow/channel/${channelId}`);
    await a.page.waitForSelector('.message');
    await a.page.click('.narrow-title');
    const selected = () =>
      a.page.evaluate(() =>
        Number(document.querySelector('.message.selected')?.getAttribute('data-message-id')),
      );
    // A key moves the selection when the view renders again, not at once: wait for the move.
    const moved = async (key: KeyInput) => {
      const before = await selected();
      await a.page.keyboard.press(key);
      await a.page.waitForFunction(
        (was) =>
          Number(document.querySelector('.message.selected')?.getAttribute('data-message-id')) !==
          was,
        {},
        before,
      );
      return selected();
    };
    await a.page.keyboard.press('End');
    await a.page.waitForSelector('.message.selected');
    const last = await selected();
    await moved('k');
    const earlier = await moved('k');
    expect(earlier).toBeLessThan(last);
    expect(await moved('j')).toBeGreaterThan(earlier);
    // `?` shows the help; Esc closes it.
    await a.page.keyboard.press('?');
    await a.page.waitForSelector('.shortcuts');
    await a.page.keyboard.press('Escape');
    await a.page.waitForFunction(() => !document.querySelector('.shortcuts'));
    // `r` replies in the selected message's topic.
    await a.page.keyboard.press('r');
    await a.page.waitForFunction(
      () => document.activeElement?.getAttribute('aria-label') === 'Message',
    );
    const topic = await a.page.$eval(
      'input[aria-label=Topic]',
      (e) => (e as HTMLInputElement).value,
    );
    expect(['launch plan', 'colour tokens']).toContain(topic);
    const draft = `a draft that must survive ${Date.now()}`;
    await a.page.type('textarea[aria-label=Message]', draft);
    // Esc puts it away, with Undo.
    await a.page.keyboard.press('Escape');
    expect(
      await a.page.$eval('textarea[aria-label=Message]', (e) => (e as HTMLTextAreaElement).value),
    ).toBe('');
    await clickText(a.page, '.undo button', 'Undo');
    expect(
      await a.page.$eval('textarea[aria-label=Message]', (e) => (e as HTMLTextAreaElement).value),
    ).toBe(draft);
    // Kept by the server: a reload finds it in the conversation.
    await a.page.waitForFunction(
      async (d) => {
        const res = await fetch('/json/drafts');
        const body = (await res.json()) as { drafts: { content: string }[] };
        return body.drafts.some((x) => x.content === d);
      },
      // The client saves a draft after a pause in typing; a loaded CI box needs longer.
      { timeout: 30_000, polling: 500 },
      draft,
    );
    await a.page.goto(
      `${web.server.url}/#narrow/channel/${channelId}/topic/${encodeURIComponent(topic).replace(/%/g, '.')}`,
    );
    await a.page.reload();
    await a.page.waitForFunction(
      (d) =>
        document.querySelector<HTMLTextAreaElement>('textarea[aria-label=Message]')?.value === d,
      { timeout: 10_000 },
      draft,
    );
    // Sent: the draft is gone from the server.
    await a.page.click('textarea[aria-label=Message]');
    await a.page.keyboard.press('Enter');
    await seeNew(a.page, draft);
    await a.page.waitForFunction(
      async (d) => {
        const body = (await (await fetch('/json/drafts')).json()) as {
          drafts: { content: string }[];
        };
        return !body.drafts.some((x) => x.content === d);
      },
      { timeout: 10_000, polling: 500 },
      draft,
    );
  });

  it('n goes to the next unread topic; stars, quotes, links and marks unread', async () => {
    await visit(a.page, `#narrow/dm/${bob.id}`);
    await a.page.waitForSelector('textarea[aria-label=Message]');
    await say(carol, 'colour tokens', `unread for n ${Date.now()}`);
    await a.page.waitForFunction(
      (name) =>
        [...document.querySelectorAll('.sidebar .nav-item')].some(
          (e) => e.textContent?.includes(`# ${name}`) && e.querySelector('.unread'),
        ),
      {},
      CHANNEL,
    );
    await a.page.click('.narrow-title');
    await a.page.keyboard.press('n');
    await a.page.waitForFunction(() => decodeURIComponent(location.hash).includes('colour'));
    await seeMessage(a.page, 'unread for n');
    const id = await a.page.evaluate(() =>
      Number(document.querySelector('.message.selected')?.getAttribute('data-message-id')),
    );
    expect(id).toBeGreaterThan(0);
    const row = `.message[data-message-id="${id}"]`;
    // Star, seen by the server.
    await clickInList(a.page, `${row} button[aria-label="Star message"]`);
    await a.page.waitForSelector(`${row} button[aria-label="Unstar message"]`);
    // Mark as unread from here: counted again.
    await clickInList(a.page, `${row} button[aria-label="Message actions"]`);
    // The menu floats over the list: clicked with the mouse, where it shows.
    await a.page.click('.popover [role=menuitem]::-p-text(Mark as unread)');
    await a.page.waitForFunction(
      (name) =>
        [...document.querySelectorAll('.sidebar .nav-item')].some(
          (e) => e.textContent?.includes(`# ${name}`) && e.querySelector('.unread'),
        ),
      { timeout: 5_000 },
      CHANNEL,
    );
    // Mark the topic read from its header.
    await clickText(a.page, '.narrow-header button', 'Mark as read');
    await a.page.waitForFunction(
      (name) =>
        ![...document.querySelectorAll('.sidebar .nav-item')].some(
          (e) => e.textContent?.includes(`# ${name}`) && e.querySelector('.unread'),
        ),
      { timeout: 5_000 },
      CHANNEL,
    );
    // Quote and reply fills the compose box with a quote and a link to the message.
    await clickInList(a.page, `${row} button[aria-label="Message actions"]`);
    await a.page.click('.popover [role=menuitem]::-p-text(Quote and reply)');
    await a.page.waitForFunction(
      (mid) => {
        const v =
          document.querySelector<HTMLTextAreaElement>('textarea[aria-label=Message]')?.value ?? '';
        return v.includes('```quote') && v.includes(`/near/${mid}`);
      },
      { timeout: 5_000 },
      id,
    );
    await a.page.keyboard.press('Escape');
    // A permalink opens the conversation at that message.
    await a.page.goto(
      `${web.server.url}/#narrow/channel/${channelId}/topic/colour.20tokens/near/${id}`,
    );
    await a.page.reload();
    await a.page.waitForSelector(`${row}.selected`, { timeout: 10_000 });
    expect(
      await api<{ message: { flags: string[] } }>(alice, 'GET', `/messages/${id}`).then(
        (r) => r.message.flags,
      ),
    ).toContain('starred');
  });

  it('moves a topic to another channel under a new name; the other person finds it there', async () => {
    await api(alice, 'POST', '/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'archive', description: 'Done and filed' }]),
      principals: JSON.stringify([alice.email, bob.email]),
    });
    const { stream_id: archive } = await api<{ stream_id: number }>(
      alice,
      'GET',
      '/get_stream_id',
      {
        stream: 'archive',
      },
    );
    const stamp = `misfiled ${Date.now()}`;
    const first = await say(bob, 'misfiled', `${stamp} one`);
    const second = await say(bob, 'misfiled', `${stamp} two`);
    await visit(a.page, `#narrow/channel/${channelId}/topic/misfiled`);
    await seeMessage(a.page, `${stamp} two`);
    const row = `.message[data-message-id="${first}"]`;
    // Drawn a frame after the message below it, on a busy machine.
    await a.page.waitForSelector(`${row} button[aria-label="Message actions"]`);
    await clickInList(a.page, `${row} button[aria-label="Message actions"]`);
    await a.page.click('.popover [role=menuitem]::-p-text(Move or rename topic)');
    const channelSelect = `${row} select[aria-label="Channel of this message"]`;
    await a.page.waitForSelector(channelSelect);
    await a.page.select(channelSelect, String(archive));
    const topic = `${row} input[aria-label="Topic of this message"]`;
    await a.page.click(topic, { count: 3 });
    await a.page.type(topic, 'filed properly');
    await a.page.click(`${row} .editor button::-p-text(Save)`);
    // Both messages moved (the whole topic), seen by the server and by Bob in the new place.
    for (const id of [first, second]) {
      let moved = { stream_id: 0, subject: '' };
      for (let i = 0; i < 50 && moved.stream_id !== archive; i++) {
        moved = (await api<{ message: typeof moved }>(bob, 'GET', `/messages/${id}`)).message;
        if (moved.stream_id !== archive) await new Promise((r) => setTimeout(r, 100));
      }
      expect(moved).toMatchObject({ stream_id: archive, subject: 'filed properly' });
    }
    await visit(b.page, `#narrow/channel/${archive}/topic/filed.20properly`);
    await seeMessage(b.page, `${stamp} one`);
    await seeMessage(b.page, `${stamp} two`);
  });

  it('sends a group direct message, with uploads pasted and dropped, with progress', async () => {
    await visit(a.page, `#feed`);
    await a.page.waitForSelector('.messages');
    await a.page.click('.narrow-title');
    await a.page.keyboard.press('x');
    await a.page.waitForFunction(
      () => document.activeElement?.getAttribute('aria-label') === 'Add a person',
    );
    for (const name of ['Bob', 'Carol']) {
      await a.page.type('input[aria-label="Add a person"]', name);
      await a.page.waitForSelector('.people-picker [role=option]');
      await a.page.keyboard.press('Enter');
    }
    const text = `to both of you ${Date.now()}`;
    await a.page.click('textarea[aria-label=Message]');
    // A pasted image is uploaded and linked.
    await a.page.evaluate(
      (bytes) => {
        const file = new File([new Uint8Array(bytes)], 'pasted.png', { type: 'image/png' });
        const data = new DataTransfer();
        data.items.add(file);
        document
          .querySelector('textarea[aria-label=Message]')!
          .dispatchEvent(
            new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
          );
      },
      [...pngImage()],
    );
    await a.page.waitForFunction(
      () =>
        document
          .querySelector<HTMLTextAreaElement>('textarea[aria-label=Message]')
          ?.value.includes('/user_uploads/'),
      { timeout: 10_000 },
    );
    // A file dropped on the compose box, on a slow uplink: its progress shows as it goes.
    const cdp = await a.page.createCDPSession();
    const uplink = (bytesPerSecond: number) =>
      cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: bytesPerSecond,
      });
    await cdp.send('Network.enable');
    await uplink(256 * 1024);
    try {
      await a.page.evaluate((size) => {
        const data = new DataTransfer();
        data.items.add(new File([new Uint8Array(size).fill(7)], 'notes.bin'));
        const compose = document.querySelector('.compose')!;
        for (const type of ['dragover', 'drop'])
          compose.dispatchEvent(
            new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }),
          );
      }, 1024 * 1024);
      await a.page.waitForFunction(
        () => {
          const bar = document.querySelector<HTMLProgressElement>(
            'progress[aria-label="Uploading notes.bin"]',
          );
          return !!bar && bar.value > 0 && bar.value < 1;
        },
        { timeout: 15_000, polling: 50 },
      );
      await a.page.waitForFunction(
        () =>
          document
            .querySelector<HTMLTextAreaElement>('textarea[aria-label=Message]')
            ?.value.includes('[notes.bin](/user_uploads/'),
        { timeout: 30_000 },
      );
    } finally {
      await uplink(-1);
      await cdp.detach();
    }
    expect(await a.page.$('progress')).toBeNull();
    await a.page.keyboard.down('Shift');
    await a.page.keyboard.press('Enter');
    await a.page.keyboard.up('Shift');
    await a.page.type('textarea[aria-label=Message]', text);
    await a.page.keyboard.press('Enter');
    const c = await openPage(browser, web.server.url);
    await logIn(c.page, carol.email, PASSWORD);
    await c.page.waitForFunction(
      () =>
        [...document.querySelectorAll('.sidebar .nav-item')].some((e) =>
          e.textContent?.includes('Alice Adams, Bob Brown'),
        ),
      { timeout: 10_000 },
    );
    await clickText(c.page, '.sidebar .nav-item', 'Alice Adams, Bob Brown');
    await seeMessage(c.page, text);
    await c.page.browserContext().close();
  });

  it('notifies as the settings ask: desktop, sound, and the unread count in the title', async () => {
    // The browser's Notification and Web Audio, recorded from the page's start: headless
    // chromium shows no notification and plays to no speaker.
    const recorder = await a.page.evaluateOnNewDocument(() => {
      const shown: string[] = [];
      const tones: number[] = [];
      Object.assign(window, { shown, tones });
      class Recorded {
        static permission = 'granted';
        static requestPermission = async () => 'granted';
        onclick: (() => void) | null = null;
        constructor(title: string) {
          shown.push(title);
        }
        close() {}
      }
      const param = () => ({ value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {} });
      class Audio {
        currentTime = 0;
        destination = {};
        createGain() {
          return { gain: param(), connect: (next: unknown) => next };
        }
        createOscillator() {
          const frequency = param();
          return {
            frequency,
            connect: (next: unknown) => next,
            start: () => tones.push(frequency.value),
            stop() {},
          };
        }
      }
      Object.assign(window, { Notification: Recorded, AudioContext: Audio });
    });
    await api(alice, 'POST', '/mark_all_as_read');
    await visit(a.page, `#narrow/channel/${channelId}`);
    await a.page.reload();
    await a.page.waitForSelector('.message');
    const tones = () =>
      a.page.evaluate(() => (window as unknown as { tones: number[] }).tones.length);
    // Sounds on (Zulip's default) for direct messages; a channel's sound as its setting says.
    await api(alice, 'PATCH', '/settings', {
      enable_sounds: 'true',
      enable_stream_audible_notifications: 'false',
    });
    await api(bob, 'POST', '/messages', {
      type: 'direct',
      to: JSON.stringify([alice.id]),
      content: `a chime for this ${Date.now()}`,
    });
    await a.page.waitForFunction(
      () => (window as unknown as { tones: number[] }).tones.length >= 2,
      { timeout: 10_000 },
    );
    // On here; preferences.test.ts proves each setting on and off.
    expect(await tones()).toBeGreaterThanOrEqual(2);
    await a.page.removeScriptToEvaluateOnNewDocument(recorder.identifier);
    await api(alice, 'PATCH', '/settings', { enable_sounds: 'true' });
    await api(alice, 'POST', '/mark_all_as_read');
    await api(alice, 'PATCH', '/settings', { enable_desktop_notifications: 'true' });
    const text = `a direct word ${Date.now()}`;
    await api(bob, 'POST', '/messages', {
      type: 'direct',
      to: JSON.stringify([alice.id]),
      content: text,
    });
    await a.page.waitForFunction(
      (name) =>
        ((window as unknown as { shown: string[] }).shown ?? []).some((t) => t.includes(name)),
      { timeout: 10_000 },
      bob.fullName,
    );
    await a.page.waitForFunction(() => /^\(\d+\) /.test(document.title), { timeout: 5_000 });
    expect(await a.page.$eval('link[rel=icon]', (e) => (e as HTMLLinkElement).href)).toMatch(
      /^data:image\/png/,
    );
    // Turned off: no notification for the next one.
    await api(alice, 'PATCH', '/settings', { enable_desktop_notifications: 'false' });
    await new Promise((r) => setTimeout(r, 500));
    const before = await a.page.evaluate(
      () => (window as unknown as { shown: string[] }).shown.length,
    );
    await api(bob, 'POST', '/messages', {
      type: 'direct',
      to: JSON.stringify([alice.id]),
      content: `quiet ${Date.now()}`,
    });
    await a.page.waitForFunction(
      (n) => /^\((\d+)\) /.exec(document.title)?.[1] === String(n),
      { timeout: 5_000 },
      2,
    );
    expect(
      await a.page.evaluate(() => (window as unknown as { shown: string[] }).shown.length),
    ).toBe(before);
  });

  it('looks right in both themes and on a phone, with no serious axe findings', async () => {
    // A channel with a conversation as a team has it, for the screenshots.
    await api(alice, 'POST', '/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name: 'product', description: 'What we ship' }]),
      principals: JSON.stringify([alice.email, bob.email, carol.email]),
    });
    const product = (
      await api<{ stream_id: number }>(alice, 'GET', '/get_stream_id', { stream: 'product' })
    ).stream_id;
    const talk: [Person, string, string][] = [
      [carol, 'release 2.4', 'The release notes for **2.4** are up for review :memo:'],
      [carol, 'release 2.4', 'Mostly the search work, plus the new Inbox.'],
      [bob, 'release 2.4', 'Read them, looks great. One nit: the upgrade step needs the new flag:'],
      [bob, 'release 2.4', '```bash\n./manage upgrade --keep-drafts\n```'],
      [alice, 'release 2.4', '@**Bob Brown** good catch, fixed :+1:'],
      [carol, 'release 2.4', 'Shipping at 3 pm then :rocket:'],
      [bob, 'onboarding', 'Who is pairing with the new designer tomorrow?'],
      [alice, 'onboarding', 'Me! I will show the design tokens and the review flow.'],
      [carol, 'onboarding', 'I booked the small room 10-12 :calendar:'],
      [alice, 'release 2.4', 'Tagged and deployed :tada: thanks everyone'],
    ];
    let lastId = 0;
    for (const [who, topic, content] of talk)
      lastId = (
        await api<{ id: number }>(who, 'POST', '/messages', {
          type: 'stream',
          to: 'product',
          topic,
          content,
        })
      ).id;
    await api(bob, 'POST', `/messages/${lastId}/reactions`, { emoji_name: 'tada' });
    await api(carol, 'POST', `/messages/${lastId}/reactions`, { emoji_name: 'tada' });
    await api(carol, 'POST', `/messages/${lastId}/reactions`, { emoji_name: 'heart' });
    await api(alice, 'POST', '/mark_all_as_read');
    await a.page.setViewport({ width: 1200, height: 800 });
    await visit(a.page, `#narrow/channel/${product}`);
    await seeMessage(a.page, 'Tagged and deployed');
    for (const theme of ['light', 'dark']) {
      await a.page.evaluate((th) => (document.documentElement.dataset.theme = th), theme);
      await a.page.waitForFunction(() => document.querySelector('span.emoji'));
      // Presence and the sidebar's state drawn, avatars loaded.
      await new Promise((r) => setTimeout(r, 1000));
      await screenshot(
        a.page,
        SCREENSHOTS,
        theme === 'light' ? 'conversation' : 'conversation-dark',
      );
      expect(await accessibilityViolations(a.page)).toEqual([]);
    }
    // A phone: touch, 390x844.
    await a.page.setViewport({
      width: 390,
      height: 844,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    await a.page.reload();
    await seeMessage(a.page, 'Tagged and deployed');
    expect(await a.page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
    for (const theme of ['light', 'dark']) {
      await a.page.evaluate((th) => (document.documentElement.dataset.theme = th), theme);
      await new Promise((r) => setTimeout(r, 300));
      const small = await a.page.evaluate(() =>
        [
          ...document.querySelectorAll<HTMLElement>(
            'button, input, select, textarea, a, [role=button], label.file-button',
          ),
        ]
          .filter(
            (e) =>
              !e.closest('.content') &&
              !e.classList.contains('visually-hidden') &&
              e.offsetParent !== null,
          )
          .filter((e) => {
            const r = e.getBoundingClientRect();
            return r.width > 0 && (r.width < 24 || r.height < 24);
          })
          .map(
            (e) => `${e.tagName} ${e.getAttribute('aria-label') ?? e.textContent?.slice(0, 20)}`,
          ),
      );
      expect(small).toEqual([]);
      // Nothing wider than the screen: no sideways scrolling, headers on one line.
      expect(await a.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        390,
      );
      const topbar = await a.page.$eval('.topbar', (e) => e.getBoundingClientRect().height);
      expect(topbar).toBeLessThan(60);
      await screenshot(a.page, SCREENSHOTS, theme === 'light' ? 'phone' : 'phone-dark');
      expect(await accessibilityViolations(a.page)).toEqual([]);
    }
    // On a touch screen Enter starts a new line.
    await a.page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
    await a.page.tap('textarea[aria-label=Message]');
    await a.page.type('textarea[aria-label=Message]', 'first');
    await a.page.keyboard.press('Enter');
    await a.page.type('textarea[aria-label=Message]', 'second');
    expect(
      await a.page.$eval('textarea[aria-label=Message]', (e) => (e as HTMLTextAreaElement).value),
    ).toMatch(/first\nsecond$/);
    await a.page.setViewport({ width: 1200, height: 800 });
    expect(a.problems).toEqual([]);
    expect(b.problems).toEqual([]);
  });
});
