import path from 'node:path';
import { startTestContext, type TestContext } from '../harness';
import { freePort } from '../free-port';
import { startTier, type Tier } from '../multiprocess/processes';
import { ensureWebBuilt } from './browser';
import { twoPeople, twoPeopleInBrowsers, type Person } from './two-people';

/**
 * The web client in chromium against `npm start`'s one process (every tier): the whole server
 * restarts for the event-queue restart. Writes the README's screenshots (docs/screenshots).
 */
jest.setTimeout(120_000);

let t: TestContext;
let server: Tier;
let port: number;
let alice: Person;
let bob: Person;

beforeAll(async () => {
  ensureWebBuilt();
  port = await freePort();
  t = await startTestContext({ EXTERNAL_HOST: `127.0.0.1:${port}` });
  ({ alice, bob } = await twoPeople(t));
  server = await startTier('all', t.config, {}, port, { startSeconds: 150 });
}, 300_000);
afterAll(async () => {
  await server?.stop();
  await t?.close();
});

describe('the web client, served by one process', () => {
  twoPeopleInBrowsers(() => ({
    url: server.url,
    alice,
    bob,
    channel: 'general',
    screenshots: path.join(__dirname, '../../docs/screenshots'),
    async restartEvents(meanwhile) {
      await server.stop('SIGKILL');
      server = await startTier('all', t.config, {}, port, { startSeconds: 150 });
      await meanwhile();
    },
  }));
});
