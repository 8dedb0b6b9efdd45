import path from 'node:path';
import { startTier } from '../multiprocess/processes';
import { twoPeopleInBrowsers } from './two-people';
import { startWebServer, type WebServer } from './web-server';

/**
 * The web client in chromium against `npm start`'s one process (every tier): the whole server
 * restarts for the event-queue restart. Writes the README's screenshots (docs/screenshots).
 */
jest.setTimeout(120_000);

let web: WebServer;

beforeAll(async () => {
  web = await startWebServer({
    people: [{ fullName: 'Alice Adams' }, { fullName: 'Bob Brown' }],
    enterSends: true,
  });
}, 300_000);
afterAll(async () => {
  await web?.stop();
});

describe('the web client, served by one process', () => {
  twoPeopleInBrowsers(() => ({
    url: web.server.url,
    alice: web.people[0],
    bob: web.people[1],
    channel: 'general',
    screenshots: path.join(__dirname, '../../docs/screenshots'),
    async restartEvents(meanwhile) {
      await web.server.stop('SIGKILL');
      web.server = await startTier('all', web.t.config, {}, web.port, { startSeconds: 150 });
      await meanwhile();
    },
  }));
});
