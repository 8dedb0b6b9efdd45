/// <reference lib="dom" />
// Functions passed to page.evaluate run in the page: typed against the DOM.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/**
 * The web client driven in Debian's chromium (installed by .ci/run with apt-get; puppeteer-core
 * never downloads a browser): two people in two browser contexts, as the README describes.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ROOT = path.join(__dirname, '../..');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(file) : statSync(file).mtimeMs);
  }
  return latest;
}

/**
 * The web client built (Vite only) if its sources changed since: the test servers run the
 * TypeScript, and serve the page from dist/apps/web.
 */
export function ensureWebBuilt(): void {
  const page = path.join(ROOT, 'dist/apps/web/index.html');
  if (existsSync(page) && statSync(page).mtimeMs >= newest(path.join(ROOT, 'apps/web'))) return;
  execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'apps/web/vite.config.mts',
      '--logLevel',
      'warn',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
}

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in CI containers has no user namespaces for chromium's sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/** Someone of the test's organization, who calls the API with an API key. */
export interface Person {
  id: number;
  email: string;
  fullName: string;
  /** `Authorization` header for calling the API as this person. */
  auth: string;
}

/** Calls the server's API (at `base`) as `who`, with a form; throws unless the answer is 200. */
export async function apiAs<T = Record<string, unknown>>(
  base: string,
  who: Person,
  method: string,
  route: string,
  form: Record<string, string> = {},
): Promise<T> {
  const query = method === 'GET' ? `?${new URLSearchParams(form)}` : '';
  const res = await fetch(`${base}/api/v1${route}${query}`, {
    method,
    headers: { Authorization: who.auth, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: method === 'GET' ? undefined : new URLSearchParams(form).toString(),
  });
  const body = (await res.json()) as T & { result: string };
  if (res.status !== 200) throw new Error(`${method} ${route}: ${JSON.stringify(body)}`);
  return body;
}

/** Problems a page reports: script errors and Content-Security-Policy refusals. */
export interface Watched {
  page: Page;
  problems: string[];
}

export async function openPage(browser: Browser, url: string): Promise<Watched> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1200, height: 800 });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${String(err)}`));
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text());
  });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return { page, problems };
}

export async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.waitForSelector('input[name=username]');
  await page.type('input[name=username]', email);
  await page.type('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForSelector('.realm-name');
}

/** Clicks the first element matching `selector` whose text contains `text`. */
export async function clickText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    (sel, t) => [...document.querySelectorAll(sel)].some((e) => e.textContent?.includes(t)),
    { timeout: 10_000 },
    selector,
    text,
  );
  await page.evaluate(
    (sel, t) => {
      const el = [...document.querySelectorAll<HTMLElement>(sel)].find((e) =>
        e.textContent?.includes(t),
      );
      el!.click();
    },
    selector,
    text,
  );
}

/**
 * Clicks `selector`, a control of a message row, as a person does: brought into view, then
 * clicked once the list is still. While the list scrolls (puppeteer's own scroll into view, a new
 * message, an image loading) virtua lets no pointer event reach its rows, so a click at once
 * could be lost.
 */
export async function clickInList(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector);
  await page.$eval(selector, (e) => e.scrollIntoView({ block: 'nearest' }));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const unreachable = await page.evaluate((sel) => {
      const e = document.querySelector(sel);
      if (!e) return 'gone';
      if (getComputedStyle(e).pointerEvents === 'none') return 'taking no pointer events';
      const r = e.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return e.contains(hit) ? null : `covered by ${hit?.outerHTML.slice(0, 120) ?? 'nothing'}`;
    }, selector);
    if (!unreachable) break;
    if (Date.now() > deadline)
      throw new Error(`${selector} never became clickable: ${unreachable}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await page.click(selector);
}

/** Waits until a message whose content contains `text` is on screen; ms waited. */
export async function seeMessage(page: Page, text: string, timeout = 10_000): Promise<number> {
  const started = Date.now();
  await page.waitForFunction(
    (t) =>
      [...document.querySelectorAll('.message .content')].some((e) => e.textContent?.includes(t)),
    { timeout, polling: 'mutation' },
    text,
  );
  return Date.now() - started;
}

/** The selector of the message whose content contains `text` (it must be on screen). */
export async function messageSelector(page: Page, text: string): Promise<string> {
  const id = await page.evaluate((t) => {
    const content = [...document.querySelectorAll('.message .content')].find((e) =>
      e.textContent?.includes(t),
    );
    return content?.closest('.message')?.getAttribute('data-message-id');
  }, text);
  if (!id) throw new Error(`no message with ${text}`);
  return `.message[data-message-id="${id}"]`;
}

export async function compose(page: Page, text: string, topic?: string): Promise<void> {
  if (topic !== undefined) {
    await page.click('input[aria-label=Topic]', { count: 3 });
    await page.type('input[aria-label=Topic]', topic);
  }
  await page.click('textarea[aria-label=Message]');
  await page.type('textarea[aria-label=Message]', text);
}

/** axe-core's serious and critical findings on the page as it is. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.slice(0, 3).join(', ')}`);
}

export async function screenshot(page: Page, dir: string | undefined, name: string) {
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

/** A small valid PNG (a 48x48 two-colour square), for the upload. */
export function pngImage(): Buffer {
  const size = 48;
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) {
      const on = x < size / 2 !== y < size / 2;
      row.set(on ? [42, 93, 176] : [240, 180, 40], 1 + x * 3);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
