/// <reference lib="dom" />
/**
 * The web client's speed (not a test): `npx tsx bench/web-client.ts`, after `npm run build`.
 *
 * One `all` process from dist/ (as `npm start` runs) on a scratch database; two channels filled
 * through the send action (BENCH_SEND_CONCURRENCY at a time): 1,000 and BENCH_MANY (default
 * 10,000) messages. The browser reads them over HTTP as any client does (`/json/`). Then, in
 * Debian's chromium (puppeteer-core):
 *
 * - first meaningful paint of the 1,000-message channel: from navigation start to the newest
 *   message on screen, signed in, BENCH_LOADS times (default 12: a p90 wants at least 10); median, p90, best and worst,
 *   and each slow load's requests (queued in the browser, server time, end; BENCH_VERBOSE=1:
 *   every load's);
 * - the gzipped size of the JavaScript and CSS the page loads first (what index.html names), and
 *   of each asset fetched later;
 * - scrolling the big channel once all of it is loaded (scrolled back page by page): every long
 *   task (PerformanceObserver 'longtask', > 50 ms) while it scrolls from the top to the bottom;
 *   BENCH_PROFILE=1: a second scroll under a Chromium trace and a CPU profile, summarised (build
 *   with WEB_MINIFY=0 for the functions' names).
 *
 * BENCH_BEFORE_DIST=<another build's dist/> (e.g. /work/wt/base/dist): the same measures of that
 * build on the same data, right after: a before/after pair on a shared machine.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { sendMessage } from '../libs/domain/messages/send-message';
import { makeRealm, makeUser } from '../test/factories';
import { freePort } from '../test/free-port';
import { startTier } from '../test/multiprocess/processes';
import { launchBrowser, logIn } from '../test/web/browser';
import { profileBrowser } from './browser-profile';
import { percentile, withScratchWorld } from './scratch-world';

const MANY = Number(process.env.BENCH_MANY ?? 10_000);
const LOADS = Number(process.env.BENCH_LOADS ?? 12);
const CONCURRENCY = Number(process.env.BENCH_SEND_CONCURRENCY ?? 8);
const VERBOSE = process.env.BENCH_VERBOSE === '1';
const PROFILE = process.env.BENCH_PROFILE === '1';
const DIST = path.join(__dirname, '../dist');

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

function bundleSizes(dist: string) {
  const dir = path.join(dist, 'apps/web/assets');
  const page = readFileSync(path.join(dist, 'apps/web/index.html'), 'utf8');
  return readdirSync(dir)
    .filter((name) => /\.(js|css)$/.test(name))
    .map((name) => {
      const bytes = readFileSync(path.join(dir, name));
      return {
        name,
        first: page.includes(`/assets/${name}`),
        bytes: bytes.length,
        gzipped: gzipSync(bytes, { level: 9 }).length,
      };
    });
}

async function main() {
  process.env.BENCH_DIST_DIR ??= DIST;
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname });
  console.log(`commit ${commit.toString().trim()}, load average ${loadAverage()}`);
  const port = await freePort();
  await withScratchWorld({ EXTERNAL_HOST: `127.0.0.1:${port}` }, async (ctx, config) => {
    const org = await makeRealm(ctx, { stringId: '', name: 'Bench' });
    const reader = await makeUser(ctx, org.realm, { fullName: 'Reader', password: 'bench pw 1' });
    const start = () =>
      startTier('all', config, { RATE_LIMIT_API_REQUESTS: '1000000' }, port, { startSeconds: 150 });
    let server = await start();
    const api = async (method: string, route: string, form: Record<string, string>) => {
      const res = await fetch(`${server.url}/api/v1${route}`, {
        method,
        headers: {
          Authorization: org.owner.auth,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(form).toString(),
      });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`${route}: ${JSON.stringify(body)}`);
      return body;
    };
    // The channels are filled through the domain action, as an API replica sends (HTTP here
    // would only make the setup slower: the measured part is the browser's).
    const channel = async (name: string, count: number) => {
      await api('POST', '/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name }]),
        principals: JSON.stringify([org.owner.user.id, reader.user.id]),
      });
      const stream = await ctx.db.stream.findFirstOrThrow({ where: { name } });
      const send = (content: string) =>
        sendMessage(ctx, {
          sender: org.owner.user,
          realm: org.realm,
          type: 'stream',
          to: stream.id,
          topic: 'ends',
          content,
          clientName: 'bench',
        });
      const started = performance.now();
      // Sent alone, so they are the oldest and the newest whatever order the others land in.
      await send(`The first of ${name}`);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < count) {
            const n = next++;
            await sendMessage(ctx, {
              sender: org.owner.user,
              realm: org.realm,
              type: 'stream',
              to: stream.id,
              topic: `topic ${n % 20}`,
              content:
                `Message **${n}** of ${name}: some words to make it a line or two long, ` +
                `with a [link](https://example.com/${n}) and \`code\`.`,
              clientName: 'bench',
            });
          }
        }),
      );
      await send(`The last of ${name}`);
      const seconds = (performance.now() - started) / 1000;
      console.log(`${name}: ${count} messages sent in ${seconds.toFixed(1)} s`);
      return stream.id;
    };
    const thousand = await channel('bench-1k', Number(process.env.BENCH_FEW ?? 1000));
    const many = await channel('bench-many', MANY);

    // Measured once the server has published every message's events (its outbox is empty).
    for (let waited = 0; waited < 600; waited++) {
      const pending = await ctx.db.outboxEvent.count({ where: { publishedAt: null } });
      if (pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    // BENCH_BEFORE_DIST (e.g. /work/wt/base/dist): the same measures of another build on the
    // same data, after this one's: a before/after pair at the same time of a shared machine.
    const builds = [process.env.BENCH_DIST_DIR, process.env.BENCH_BEFORE_DIST].filter(Boolean);
    try {
      for (const [n, dist] of builds.entries()) {
        if (n > 0) {
          await server.stop();
          process.env.BENCH_DIST_DIR = dist;
          server = await start();
        }
        console.log(`--- ${dist}`);
        const browser = await launchBrowser();
        try {
          const context = await browser.createBrowserContext();
          const page = await context.newPage();
          await page.setViewport({ width: 1200, height: 800 });
          page.setDefaultNavigationTimeout(120_000);
          await page.goto(server.url);
          await logIn(page, reader.email, 'bench pw 1');
          // A reader who keeps up: the channels open at their newest messages, not at the
          // first unread (which would be their first message).
          await fetch(`${server.url}/api/v1/mark_all_as_read`, {
            method: 'POST',
            headers: { Authorization: reader.auth },
          });

          const paints: number[] = [];
          for (let i = 0; i < LOADS; i++) {
            // From a blank page, so each load is a whole navigation (not a change of hash).
            await page.goto('about:blank');
            await page.goto(`${server.url}/#narrow/channel/${thousand}`, {
              waitUntil: 'domcontentloaded',
            });
            const handle = await page
              .waitForFunction(
                () =>
                  [...document.querySelectorAll('.message .content')].some((e) =>
                    e.textContent?.includes('The last of bench-1k'),
                  ) && performance.now(),
                { polling: 'raf', timeout: 120_000 },
              )
              .catch(async (err: Error) => {
                const state = await page.evaluate(() => [
                  location.href,
                  document.body.innerText.slice(0, 400),
                ]);
                throw new Error(`${err.message}: ${state.join(' | ')}`);
              });
            const paint = (await handle.jsonValue()) as number;
            paints.push(paint);
            // Where a load's time went: each request's queueing (browser side, e.g. waiting for a
            // connection), waiting for the first byte (server side) and download.
            const requests = await page.evaluate(() =>
              performance.getEntriesByType('resource').map((e) => {
                const r = e as PerformanceResourceTiming;
                return {
                  url: new URL(r.name).pathname,
                  start: r.startTime,
                  queued: (r.requestStart || r.startTime) - r.startTime,
                  server: r.responseStart - (r.requestStart || r.startTime),
                  end: r.responseEnd,
                };
              }),
            );
            const slowest = requests.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
            const detail = requests
              .filter((r) => r.end <= paint + 1)
              .map(
                (r) =>
                  `${r.url} @${r.start.toFixed(0)} queued ${r.queued.toFixed(0)} server ${r.server.toFixed(0)} end ${r.end.toFixed(0)}`,
              );
            console.log(
              `load ${i + 1}: ${paint.toFixed(0)} ms (slowest ${slowest.url} ` +
                `${(slowest.end - slowest.start).toFixed(0)} ms)` +
                (paint > 1000 || VERBOSE ? `\n    ${detail.join('\n    ')}` : ''),
            );
          }
          paints.sort((a, b) => a - b);
          console.log(
            `first meaningful paint, 1,000-message channel (${LOADS} loads): median ` +
              `${percentile(paints, 50).toFixed(0)} ms, p90 ${percentile(paints, 90).toFixed(0)} ms, ` +
              `best ${paints[0].toFixed(0)} ms, worst ${paints[paints.length - 1].toFixed(0)} ms ` +
              `(load average ${loadAverage()})`,
          );
          console.log(`  all: ${paints.map((p) => p.toFixed(0)).join(' ')}`);
          const files = bundleSizes(dist!);
          for (const file of files)
            console.log(
              `${file.name}: ${file.bytes} B, ${file.gzipped} B gzipped` +
                (file.first ? ' (loaded first)' : ' (on demand)'),
            );
          const first = files.filter((f) => f.first).reduce((sum, f) => sum + f.gzipped, 0);
          console.log(`bundle loaded first: ${(first / 1024).toFixed(1)} KB gzipped`);

          // Switching between two conversations already opened once (cached): from the click
          // on the sidebar to the other's newest message on screen.
          const switches: number[] = [];
          const names = ['bench-1k', 'bench-many'];
          // The paint above comes before registering ends: the sidebar is drawn after it.
          await page.waitForFunction(
            (all) =>
              all.every((name) =>
                [...document.querySelectorAll('.sidebar .nav-item')].some((e) =>
                  e.textContent?.includes(`# ${name}`),
                ),
              ),
            { timeout: 60_000 },
            names,
          );
          for (let i = 0; i < 2 * LOADS + 2; i++) {
            const to = names[(i + 1) % 2];
            const ms = await page.evaluate(async (name) => {
              const item = [...document.querySelectorAll<HTMLElement>('.sidebar .nav-item')].find(
                (e) => e.textContent?.includes(`# ${name}`),
              )!;
              const started = performance.now();
              item.click();
              for (;;) {
                await new Promise((resolve) => requestAnimationFrame(resolve));
                const shown = [...document.querySelectorAll('.message .content')].some((e) =>
                  e.textContent?.includes(`The last of ${name}`),
                );
                if (shown) return performance.now() - started;
                if (performance.now() - started > 60_000) return -1;
              }
            }, to);
            // The first visit of each is a load, not a switch.
            if (i >= 2) switches.push(ms);
          }
          switches.sort((a, b) => a - b);
          console.log(
            `switching conversations, cached (${switches.length} switches): median ` +
              `${percentile(switches, 50).toFixed(0)} ms, p90 ${percentile(switches, 90).toFixed(0)} ms, ` +
              `worst ${switches[switches.length - 1].toFixed(0)} ms (load average ${loadAverage()})`,
          );

          await page.goto('about:blank');
          await page.goto(`${server.url}/#narrow/channel/${many}`, {
            waitUntil: 'domcontentloaded',
          });
          await page.waitForSelector('.message');
          const loadStarted = performance.now();
          // Scroll back until the first message is loaded.
          await page.waitForFunction(
            () => {
              const list = document.querySelector('.messages');
              if (list) list.scrollTop = 0;
              return [...document.querySelectorAll('.message .content')].some((e) =>
                e.textContent?.includes('The first of bench-many'),
              );
            },
            { polling: 200, timeout: 300_000 },
          );
          console.log(
            `loaded all ${MANY} by scrolling back in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
          );
          const scroll = () =>
            page.evaluate(async () => {
              const list = document.querySelector<HTMLElement>('.messages')!;
              const tasks: number[] = [];
              const observer = new PerformanceObserver((entries) => {
                for (const e of entries.getEntries()) tasks.push(e.duration);
              });
              observer.observe({ type: 'longtask', buffered: false });
              const started = performance.now();
              let frames = 0;
              while (list.scrollTop + list.clientHeight < list.scrollHeight - 2) {
                list.scrollTop += 600;
                frames++;
                await new Promise((resolve) => requestAnimationFrame(resolve));
              }
              await new Promise((resolve) => setTimeout(resolve, 200));
              observer.disconnect();
              return {
                frames,
                seconds: (performance.now() - started) / 1000,
                rows: document.querySelectorAll('.message').length,
                longTasks: tasks.length,
                worst: Math.max(0, ...tasks),
              };
            });
          const result = await scroll();
          console.log(
            `scrolled ${MANY} loaded messages top to bottom in ${result.frames} frames ` +
              `(${result.seconds.toFixed(1)} s, ${result.rows} rows in the DOM at the end): ` +
              `${result.longTasks} long tasks, worst ${result.worst.toFixed(0)} ms ` +
              `(load average ${loadAverage()})`,
          );
          if (PROFILE) {
            // Once more, traced and profiled (which slows it): where the long tasks go.
            await page.evaluate(() => {
              document.querySelector('.messages')!.scrollTop = 0;
            });
            await new Promise((resolve) => setTimeout(resolve, 1000));
            const profiled = await profileBrowser(page, scroll);
            const ms = ([name, t]: [string, number]) =>
              `    ${t.toFixed(0).padStart(6)} ms  ${name}`;
            console.log(
              `profiled scroll: ${profiled.result.longTasks} long tasks seen by the page; ` +
                `${profiled.longTasks.length} in the trace ` +
                `(${profiled.longTasks.map((t) => t.toFixed(0)).join(' ')} ms); inside them, by kind:\n` +
                profiled.kinds.slice(0, 12).map(ms).join('\n') +
                `\n  JavaScript self time, whole scroll:\n` +
                profiled.functions.slice(0, 25).map(ms).join('\n'),
            );
          }
        } finally {
          await browser.close();
        }
      }
    } finally {
      await server.stop();
    }
  });
}

void main();
