/**
 * The change feed behind Debian's PgBouncer in transaction mode, started by this file in front of
 * the test database, as docs/scaling.md has operators run it. LISTEN needs a session of its own:
 * through the pooler the feed hears nothing, so it must neither hold the requests that wait for
 * its barrier nor go on trusting what it keeps; with DATABASE_LISTEN_URL it hears every change.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../config/load-config';
import { makeRealm, makeUser } from '../../test/factories';
import { freePort } from '../../test/free-port';
import { startTestContext, type TestContext } from '../../test/harness';
import { waitFor } from '../../test/worker-factories';
import { PrincipalChangeFeed, type PrincipalChange } from './principal-changes';

jest.setTimeout(60_000);

let t: TestContext;
let dir: string;
let bouncer: ChildProcess;
let pooledUrl: string;

beforeAll(async () => {
  t = await startTestContext();
  dir = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const direct = new URL(t.config.databaseUrl);
  writeFileSync(path.join(dir, 'users.txt'), `"${direct.username}" ""\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits,options',
      `unix_socket_dir = ${dir}`,
      '',
    ].join('\n'),
  );
  // PgBouncer will not run as root; -u gives up root for the database's own user.
  const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  bouncer = spawn('pgbouncer', [...asRoot, path.join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket.destroy() && true));
        socket.on('error', () => resolve(false));
      }),
    10_000,
    50,
  );
  pooledUrl = Object.assign(new URL(t.config.databaseUrl), { port: String(port) }).toString();
});
afterAll(async () => {
  bouncer?.kill();
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Clients keeping the pooler's server connections busy, as a loaded api process does. */
async function busyPool(url: string): Promise<() => Promise<void>> {
  const clients = await Promise.all(
    [...Array(8)].map(async () => {
      const client = new Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  let running = true;
  const loops = clients.map(async (client) => {
    while (running) await client.query('SELECT pg_sleep(0.005)');
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    await Promise.all(clients.map((client) => client.end()));
  };
}

function feedOn(url: string) {
  const changes: PrincipalChange[] = [];
  const errors: Error[] = [];
  let resets = 0;
  const feed = new PrincipalChangeFeed(
    url,
    { change: (change) => changes.push(change), reset: () => resets++ },
    (err) => errors.push(err),
  );
  return { feed, changes, errors, resets: () => resets };
}

it('does not hold requests on a feed that LISTENs through the pooler, and says why', async () => {
  const stopBusy = await busyPool(pooledUrl);
  const { feed, errors, resets } = feedOn(pooledUrl);
  try {
    await feed.start();
    const resetsBefore = resets();
    // PgBouncer may hand the barrier's statement to the very server connection that ran LISTEN,
    // which then hears it; any other one does not. Barriers go on until one is lost.
    for (let i = 0; i < 20 && errors.length === 0; i++) {
      const started = Date.now();
      await feed.barrier();
      // Bounded by the barrier's timeout rather than never.
      expect(Date.now() - started).toBeLessThan(8_000);
    }
    expect(errors.map((e) => e.message).join()).toContain('DATABASE_LISTEN_URL');
    // What the feed kept is dropped: it reconnected.
    expect(resets()).toBeGreaterThan(resetsBefore);
  } finally {
    await feed.close();
    await stopBusy();
  }
});

it('hears through DATABASE_LISTEN_URL what is committed through the pooler', async () => {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: pooledUrl,
    DATABASE_LISTEN_URL: t.config.databaseUrl,
  });
  expect(config.databaseListenUrl).toBe(t.config.databaseUrl);
  expect(loadConfig({ ...process.env, DATABASE_URL: pooledUrl }).databaseListenUrl).toBe(pooledUrl);
  const org = await makeRealm(t);
  const user = await makeUser(t, org.realm);
  const stopBusy = await busyPool(pooledUrl);
  const { feed, changes, errors } = feedOn(config.databaseListenUrl);
  const writer = new Client({ connectionString: config.databaseUrl });
  try {
    await feed.start();
    await writer.connect();
    await writer.query('UPDATE users SET full_name = $1 WHERE id = $2', ['Renamed', user.user.id]);
    await waitFor(async () => changes.some((c) => c.kind === 'user' && c.id === user.user.id));
    const started = Date.now();
    await feed.barrier();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(errors).toEqual([]);
  } finally {
    await writer.end();
    await feed.close();
    await stopBusy();
  }
});
