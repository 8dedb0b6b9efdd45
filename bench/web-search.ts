/// <reference lib="dom" />
/**
 * Search in the web client (not a test): `npx tsx bench/web-search.ts`, after `npm run build`.
 *
 * One `all` process from dist/ (as `npm start` runs) on a scratch database holding BENCH_MESSAGES
 * (default 100,000) channel messages that the reader receives: a few through the send action, the
 * rest copied in by SQL (the full-text trigger fills `search_tsv` for each), with words drawn from
 * a vocabulary so that a query matches a few rows (a rare word), about one in 60 (a common one),
 * or combines with operators. Then in Debian's chromium (puppeteer-core), signed in, each query is
 * typed into the search box and timed from Enter to its results on screen, BENCH_ROUNDS times
 * (default 5) per query: median and p90 over all, and per query.
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { sendMessage } from '../libs/domain/messages/send-message';
import { makeRealm, makeUser } from '../test/factories';
import { freePort } from '../test/free-port';
import { startTier } from '../test/multiprocess/processes';
import { launchBrowser, logIn } from '../test/web/browser';
import { percentile, withScratchWorld } from './scratch-world';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DIST = path.join(__dirname, '../dist');
const WORDS = [
  'apple',
  'banana',
  'cherry',
  'delta',
  'echo',
  'falcon',
  'garden',
  'harbor',
  'island',
  'jungle',
  'kettle',
  'lantern',
  'meadow',
  'nectar',
  'orbit',
  'pepper',
  'quartz',
  'river',
  'saddle',
  'timber',
  'umbrella',
  'valley',
  'walnut',
  'yonder',
  'zephyr',
  'anchor',
  'bridge',
  'candle',
  'dragon',
  'ember',
  'feather',
  'glacier',
  'hollow',
  'ivory',
  'jasmine',
  'kernel',
  'lagoon',
  'marble',
  'nomad',
  'oyster',
  'pebble',
  'quiver',
  'rocket',
  'summit',
  'tunnel',
  'uplink',
  'violet',
  'willow',
  'xenon',
  'yodel',
  'zigzag',
  'acorn',
  'breeze',
  'cactus',
  'dune',
  'engine',
  'forest',
  'granite',
  'horizon',
  'igloo',
];

async function main() {
  process.env.BENCH_DIST_DIR ??= DIST;
  const port = await freePort();
  await withScratchWorld({ EXTERNAL_HOST: `127.0.0.1:${port}` }, async (ctx, config) => {
    const org = await makeRealm(ctx, { stringId: '', name: 'Bench' });
    const reader = await makeUser(ctx, org.realm, { fullName: 'Reader', password: 'bench pw 1' });
    const server = await startTier('all', config, { RATE_LIMIT_API_REQUESTS: '1000000' }, port, {
      startSeconds: 150,
    });
    try {
      const stream = await ctx.db.stream.findFirstOrThrow({
        where: { realmId: org.realm.id, name: 'general' },
      });
      // A few through the send action, so the copied rows have a real shape to copy.
      for (let i = 0; i < 20; i++)
        await sendMessage(ctx, {
          sender: org.owner.user,
          realm: org.realm,
          type: 'stream',
          to: stream.id,
          topic: `topic ${i % 20}`,
          content: `Seed message ${i} about ${WORDS[i]} and ${WORDS[(i * 7) % WORDS.length]}`,
          clientName: 'bench',
        });
      const started = performance.now();
      const batch = 10_000;
      for (let done = 20; done < MESSAGES; done += batch) {
        const n = Math.min(batch, MESSAGES - done);
        // Three words from the vocabulary each (one in 60 rows per word), and a rare word in
        // one row of 5,000; a link in one of 10.
        await ctx.db.$executeRawUnsafe(
          `WITH src AS (
             SELECT g, $1::text[] AS w FROM generate_series($2::int, $3::int) g
           ), rows AS (
             SELECT g, 'topic ' || (g % 50) AS subject,
               'Message ' || g || ' mentions ' || w[1 + (g * 7) % 60] || ', ' || w[1 + (g * 13) % 60]
                 || ' and ' || w[1 + (g * 31) % 60]
                 || CASE WHEN g % 5000 = 0 THEN ' rarity' ELSE '' END
                 || CASE WHEN g % 10 = 0 THEN ' https://example.com/' || g ELSE '' END AS content
             FROM src
           ), inserted AS (
             INSERT INTO messages (realm_id, sender_id, recipient_id, subject, content,
               rendered_content, rendered_content_version, date_sent, sending_client_name,
               has_link, is_channel_message)
             SELECT $4, $5, $6, subject, content, '<p>' || content || '</p>', 1,
               now() - make_interval(secs => ($3 - g)), 'bench', g % 10 = 0, true
             FROM rows ORDER BY g
             RETURNING id
           )
           INSERT INTO user_messages (user_id, message_id, flags)
           SELECT u, id, 1 FROM inserted, unnest($7::int[]) u`,
          WORDS,
          done,
          done + n - 1,
          org.realm.id,
          org.owner.user.id,
          stream.recipientId,
          [org.owner.user.id, reader.user.id],
        );
      }
      await ctx.db.$executeRawUnsafe('ANALYZE messages; ANALYZE user_messages');
      const count = await ctx.db.message.count({ where: { realmId: org.realm.id } });
      console.log(`${count} messages in ${((performance.now() - started) / 1000).toFixed(1)} s`);

      const queries = [
        'rarity',
        'walnut',
        'harbor nectar',
        'channel:general zephyr',
        'sender:' + org.owner.email + ' harbor',
        'has:link kettle',
        'topic:"topic 7" mentions',
      ];
      // The server's part alone: the same narrows through the API, newest 100 of each.
      for (const query of queries) {
        const narrow = JSON.stringify(
          query.split(' ').map((word) => {
            const m = /^([a-z]+):(.*)$/.exec(word);
            return m
              ? { operator: m[1], operand: m[2].replace(/"/g, '') }
              : { operator: 'search', operand: word };
          }),
        );
        const t0 = performance.now();
        const res = await fetch(
          `${server.url}/api/v1/messages?${new URLSearchParams({ anchor: 'newest', num_before: '100', num_after: '0', narrow })}`,
          { headers: { Authorization: reader.auth } },
        );
        const body = (await res.json()) as { messages?: unknown[]; msg?: string };
        console.log(
          `  API ${query}: ${(performance.now() - t0).toFixed(0)} ms, ${body.messages?.length ?? body.msg}`,
        );
      }
      const browser = await launchBrowser();
      const times = new Map<string, number[]>();
      try {
        const page = await (await browser.createBrowserContext()).newPage();
        await page.setViewport({ width: 1200, height: 800 });
        page.setDefaultNavigationTimeout(120_000);
        await page.goto(server.url);
        await logIn(page, reader.email, 'bench pw 1');
        const box = 'input[aria-label="Search messages"]';
        for (let round = 0; round <= ROUNDS; round++) {
          for (const query of queries) {
            // Elsewhere first, so each search loads its results rather than showing a cache.
            await page.evaluate(() => (location.hash = '#inbox'));
            await page.waitForSelector('.inbox');
            // A different query each round (the client keeps the views it showed).
            const typed = `${query} -topic:r${round}`;
            await page.click(box, { count: 3 });
            await page.keyboard.press('Backspace');
            await page.type(box, typed);
            const t0 = await page.evaluate(() => performance.now());
            await page.keyboard.press('Enter');
            const word = query.split(' ').pop()!;
            console.log(`  searching ${typed}`);
            const t1 = (await (
              await page.waitForFunction(
                (w) =>
                  [...document.querySelectorAll('.message .content')].some((e) =>
                    e.textContent?.includes(w),
                  ) && performance.now(),
                { polling: 'raf', timeout: 60_000 },
                word,
              )
            ).jsonValue()) as number;
            // Round 0 warms the server's and the page's code paths.
            if (round > 0) times.set(query, [...(times.get(query) ?? []), t1 - t0]);
          }
        }
      } finally {
        await browser.close();
      }
      const all = [...times.values()].flat().sort((a, b) => a - b);
      console.log(
        `search, Enter to results on screen, ${all.length} searches over ${count} messages` +
          ` (load ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}):` +
          ` p50 ${percentile(all, 50).toFixed(0)} ms, p90 ${percentile(all, 90).toFixed(0)} ms`,
      );
      for (const [query, list] of times) {
        const sorted = [...list].sort((a, b) => a - b);
        console.log(
          `  ${query}: p50 ${percentile(sorted, 50).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`,
        );
      }
    } finally {
      await server.stop();
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
