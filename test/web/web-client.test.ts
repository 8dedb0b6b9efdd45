import path from 'node:path';
import { ensureBuilt } from '../../deploy/local/cluster';
import { makeRealm, makeUser, type TestUser } from '../factories';
import { startTestContext, type TestContext } from '../harness';
import { freePort, startTier, type Tier } from '../multiprocess/processes';
import { twoPeopleInBrowsers, type Person } from './two-people';

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
const PASSWORD = 'a long browser password';

const person = (u: TestUser, fullName: string): Person => ({
  email: u.email,
  password: PASSWORD,
  fullName,
  auth: u.auth,
});

beforeAll(async () => {
  ensureBuilt();
  port = await freePort();
  t = await startTestContext({ EXTERNAL_HOST: `127.0.0.1:${port}` });
  const org = await makeRealm(t, { stringId: '', name: 'Acme Corp' });
  alice = person(
    await makeUser(t, org.realm, { fullName: 'Alice Adams', password: PASSWORD }),
    'Alice Adams',
  );
  bob = person(
    await makeUser(t, org.realm, { fullName: 'Bob Brown', password: PASSWORD }),
    'Bob Brown',
  );
  server = await startTier('all', t.config, {}, port);
});
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
      server = await startTier('all', t.config, {}, port);
      await meanwhile();
    },
  }));
});
