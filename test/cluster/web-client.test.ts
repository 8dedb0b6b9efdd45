import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster, type Cluster } from '../../deploy/local/cluster';
import { CLUSTER_SECRET_KEY, clusterEnv } from '../cluster-env';
import { startTestContext, type TestContext } from '../harness';
import type { Person } from '../web/browser';
import { twoPeopleInBrowsers } from '../web/two-people';
import { webOrganization } from '../web/web-server';

/**
 * The web client's browser test (test/web/two-people.ts) through nginx in front of the local
 * cluster (`npm run cluster`: 2 api, 2 events, 2 worker processes); the event-queue restart kills
 * both events replicas while the API tier takes messages, then starts them again.
 */
jest.setTimeout(240_000);

// Apart from cluster.test.ts's ports (19480-19515), so both files may run at once.
const BASE_PORT = 19540;
let t: TestContext;
let cluster: Cluster;
let alice: Person;
let bob: Person;

beforeAll(async () => {
  t = await startTestContext({
    EXTERNAL_HOST: `127.0.0.1:${BASE_PORT}`,
    SECRET_KEY: CLUSTER_SECRET_KEY,
  });
  [alice, bob] = await webOrganization(t, {
    people: [{ fullName: 'Alice Adams' }, { fullName: 'Bob Brown' }],
    enterSends: true,
  });
  cluster = await startCluster({
    dir: mkdtempSync(path.join(tmpdir(), 'chat-web-cluster-')),
    basePort: BASE_PORT,
    env: clusterEnv(t),
  });
});
afterAll(async () => {
  await cluster?.stop();
  await t?.close();
});

describe('the web client through nginx', () => {
  twoPeopleInBrowsers(() => ({
    url: cluster.url,
    alice,
    bob,
    channel: 'general',
    async restartEvents(meanwhile) {
      const events = cluster.processes.filter((p) => p.kind === 'events').map((p) => p.name);
      for (const name of events) await cluster.kill(name, 'SIGKILL');
      await meanwhile();
      for (const name of events) await cluster.restart(name);
    },
  }));
});
