/**
 * Reads on a real streaming replica (`pg_basebackup -R`, a second postgres on another port) of a
 * private PostgreSQL that this file starts, through the API as clients call it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import type { Express } from 'express';
import { createApiApp } from '../../apps/api/app';
import {
  startPrivatePostgres,
  startPrivateReplica,
  type PrivateReplica,
  type PrivateStore,
} from '../../deploy/local/private-stores';
import { loadConfig } from '../config/load-config';
import type { AppContext } from '../core/context';
import { createLogger } from '../log/create-logger';
import { metricsRegistry, watchReadReplicas } from '../metrics';
import { connectRedis } from '../redis/connect';
import { makeRealm, makeUser, type TestUser } from '../../test/factories';
import { freePort } from '../../test/free-port';
import { deleteKeys, TEST_REDIS_URL } from '../../test/harness';
import { createDb } from './client';
import { applyMigrations } from './migrate';
import {
  closeReadReplicas,
  isConnectionError,
  parseLsn,
  readWith,
  replicaStats,
} from './read-replicas';
import type { Db } from './client';
import { closeSqlPool } from './sql';

const MAX_LAG_SECONDS = 3;
const REPLICA_TIMEOUT_MS = 1000;
const logs = mkdtempSync(path.join(tmpdir(), 'read-replicas-test-'));
let primary: PrivateStore;
let replica: PrivateReplica;
let ctx: AppContext;
let app: Express;
let host: string;
let alice: TestUser;
let bob: TestUser;
let channelName: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

const stats = () => {
  const found = replicaStats(ctx);
  if (!found) throw new Error('no replica state');
  return found;
};

async function channelHistory(who: TestUser): Promise<string[]> {
  const res = await request(app)
    .get('/api/v1/messages')
    .set('Host', host)
    .set('Authorization', who.auth)
    .query({
      anchor: 'newest',
      num_before: 50,
      num_after: 0,
      narrow: JSON.stringify([{ operator: 'channel', operand: channelName }]),
      apply_markdown: 'false',
    });
  expect(res.status).toBe(200);
  return (res.body as { messages: { content: string }[] }).messages.map((m) => m.content);
}

/** Waits until a history read is counted on the replica again (after a stop, a pause). */
const replicaServesAgain = () =>
  waitFor('the replica serves again', async () => {
    const before = stats().reads.replica;
    await channelHistory(bob);
    return stats().reads.replica > before;
  });

/**
 * A real TCP peer in front of the replica. It relays to the replica until `hang()`; from then on
 * it accepts connections and reads them but answers nothing, on the connections it held and on
 * new ones, as a replica host that stalls or a network that drops its packets. After `heal()` new
 * connections reach the replica again, while the ones it held stay silent for good, as after a
 * restart of the replica's host.
 */
interface HangingRelay {
  url: string;
  hang(): void;
  heal(): void;
  close(): Promise<void>;
}

async function startHangingRelay(targetPort: number): Promise<HangingRelay> {
  let hung = false;
  const sockets = new Set<Socket>();
  const silencers = new Set<() => void>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    client.resume();
    if (hung) return;
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    let relaying = true;
    const silence = () => {
      relaying = false;
    };
    silencers.add(silence);
    client.on('data', (chunk: Buffer) => relaying && upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => relaying && client.write(chunk));
    client.on('close', () => {
      silencers.delete(silence);
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/chat`,
    hang() {
      hung = true;
      for (const silence of silencers) silence();
    },
    heal() {
      hung = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A context of its own whose one replica is `url`: its replica state starts with its first read. */
const contextWithReplica = (url: string): AppContext => ({
  ...ctx,
  config: { ...ctx.config, databaseReplicaUrls: [url] },
});

/** Counts messages through the replica routing: which clients the read tried, and how long it took. */
async function timedCount(on: AppContext): Promise<{ count: number; tried: Db[]; ms: number }> {
  const tried: Db[] = [];
  const started = Date.now();
  const counting = readWith(on, bob.user.id, async (db) => {
    tried.push(db);
    return db.message.count();
  });
  // Without a bound the read waits for TCP's own timeout, minutes: fail in seconds instead.
  let giveUp: NodeJS.Timeout | undefined;
  const count = await Promise.race([
    counting,
    new Promise<never>((_, reject) => {
      giveUp = setTimeout(() => reject(new Error('the read still waits after 10 s')), 10_000);
    }),
  ]).finally(() => clearTimeout(giveUp));
  return { count, tried, ms: Date.now() - started };
}

/**
 * A read on the replica's turn while it is silent: tried there, then answered by the primary
 * within the bound, and the replica counted down.
 */
async function expectPrimaryAnswersWithinBound(on: AppContext, onPrimary: number): Promise<void> {
  const hung = await timedCount(on);
  expect(hung.count).toBe(onPrimary);
  expect(hung.tried).toHaveLength(2);
  expect(hung.tried[0]).not.toBe(ctx.db);
  expect(hung.tried[1]).toBe(ctx.db);
  expect(hung.ms).toBeLessThan(REPLICA_TIMEOUT_MS + 1000);
  expect(replicaStats(on)?.skips.down).toBeGreaterThan(0);
}

async function send(who: TestUser, content: string): Promise<void> {
  const res = await request(app)
    .post('/api/v1/messages')
    .set('Host', host)
    .set('Authorization', who.auth)
    .type('form')
    .send({ type: 'stream', to: channelName, topic: 'replicas', content });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  primary = await startPrivatePostgres(primaryPort, path.join(logs, 'primary.log'));
  const admin = new Client({ connectionString: `${primary.url}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE chat');
  await admin.end();
  await applyMigrations(`${primary.url}/chat`);
  replica = await startPrivateReplica(primaryPort, replicaPort, path.join(logs, 'replica.log'));

  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: `${primary.url}/chat`,
    DATABASE_REPLICA_URLS: `${replica.url}/chat`,
    DATABASE_REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    DATABASE_REPLICA_TIMEOUT_MS: String(REPLICA_TIMEOUT_MS),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: `test:replicas:${randomBytes(4).toString('hex')}:`,
    EXTERNAL_HOST: 'chat.test',
    BCRYPT_ROUNDS: '4',
    LOG_LEVEL: 'error',
    LOG_FORMAT: 'pretty',
    RATE_LIMIT_API_REQUESTS: '1000000',
    OVERLOAD_EVENT_LOOP_LAG_MS: '60000',
    OVERLOAD_ANSWER_TARGET_MS: '60000',
  });
  ctx = {
    db: createDb(config.databaseUrl, { maxConnections: 5 }),
    redis: connectRedis(config),
    config,
    log: createLogger({ level: 'error', format: 'pretty' }),
  };
  app = createApiApp(ctx);
  watchReadReplicas(ctx);
  const org = await makeRealm(ctx);
  host = org.host;
  alice = await makeUser(ctx, org.realm, { fullName: 'Alice Replica' });
  bob = await makeUser(ctx, org.realm, { fullName: 'Bob Replica' });
  channelName = `replicas-${randomBytes(3).toString('hex')}`;
  const subscribed = await request(app)
    .post('/api/v1/users/me/subscriptions')
    .set('Host', host)
    .set('Authorization', alice.auth)
    .type('form')
    .send({
      subscriptions: JSON.stringify([{ name: channelName }]),
      principals: JSON.stringify([alice.user.id, bob.user.id]),
    });
  expect(subscribed.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await closeReadReplicas(ctx);
  await closeSqlPool(ctx);
  await ctx.db.$disconnect();
  await deleteKeys(ctx.redis, `${ctx.config.redisPrefix}*`);
  ctx.redis.disconnect();
  await replica?.destroy();
  await primary?.destroy();
  rmSync(logs, { recursive: true, force: true });
});

describe('read replicas', () => {
  it('parses WAL positions so that they compare in order', () => {
    expect(parseLsn('0/16B3748') < parseLsn('0/16B3750')).toBe(true);
    expect(parseLsn('0/FFFFFFFF') < parseLsn('1/0')).toBe(true);
  });

  it("asks the replicas before a process's first read, so none counts as down", async () => {
    // A context of its own: its replica state starts with this read.
    const fresh: AppContext = { ...ctx };
    try {
      const which = () => readWith(fresh, bob.user.id, async (db) => db);
      const reads = [await which(), await which()];
      expect(reads.filter((db) => db !== fresh.db)).toHaveLength(1);
      expect(replicaStats(fresh)?.skips.down).toBe(0);
    } finally {
      await closeReadReplicas(fresh);
    }
  });

  it('serves history from the replica in turns, and a user its own writes from the primary', async () => {
    await send(alice, 'before the pause');
    // Once the replica has replayed that, Bob's history comes from it.
    await waitFor('the replica serves Bob', async () => {
      const before = stats().reads.replica;
      const seen = await channelHistory(bob);
      return seen.includes('before the pause') && stats().reads.replica > before;
    });

    await replica.pauseReplay();
    await send(alice, 'while the replica is paused');
    // Alice reads her own message at once, twice: the replica is behind her write, so never it.
    const replicaReads = stats().reads.replica;
    for (let i = 0; i < 2; i++) {
      expect(await channelHistory(alice)).toContain('while the replica is paused');
    }
    expect(stats().reads.replica).toBe(replicaReads);
    expect(stats().reads.primary_own_write).toBeGreaterThan(0);

    // Bob, who wrote nothing, reads in turns from the primary and the paused replica, which
    // lacks the new message...
    const seen = [await channelHistory(bob), await channelHistory(bob)];
    expect(seen.filter((m) => m.includes('while the replica is paused'))).toHaveLength(1);
    expect(stats().reads.replica).toBe(replicaReads + 1);

    // ...until it lags past the bound; then it is skipped and the primary answers every time.
    await waitFor('the lagging replica is skipped', async () => {
      await channelHistory(bob);
      return stats().skips.lagging > 0;
    });
    for (let i = 0; i < 3; i++) {
      expect(await channelHistory(bob)).toContain('while the replica is paused');
    }
    const metrics = await metricsRegistry.metrics();
    expect(metrics).toMatch(/chat_db_replica_skips_total\{reason="lagging"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/chat_db_replica_lag_seconds\{replica="127\.0\.0\.1:\d+"[^}]*\} /);

    await replica.resumeReplay();
    await replicaServesAgain();
  }, 90_000);

  it('skips a replica that is down, and uses it again once it is back', async () => {
    await replica.stop();
    await waitFor('the replica is seen down', async () => {
      const before = stats().skips.down;
      for (let i = 0; i < 2; i++) expect(await channelHistory(bob)).toContain('before the pause');
      return stats().skips.down > before;
    });
    await replica.start();
    await replicaServesAgain();
  }, 90_000);

  it('tells a connection that failed from a query that failed', async () => {
    const [serverEnded, queryFailed] = await Promise.allSettled([
      ctx.db.$queryRaw`SELECT pg_terminate_backend(pg_backend_pid())`,
      ctx.db.$queryRawUnsafe('SELECT * FROM no_such_table'),
    ]);
    expect(serverEnded.status === 'rejected' && isConnectionError(serverEnded.reason)).toBe(true);
    expect(queryFailed.status === 'rejected' && isConnectionError(queryFailed.reason)).toBe(false);
    const timedOut = await ctx.db
      .$transaction(async (tx) => {
        await tx.$executeRaw`SET LOCAL statement_timeout = 10`;
        await tx.$queryRaw`SELECT pg_sleep(1)`;
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(timedOut).toBeInstanceOf(Error);
    expect(isConnectionError(timedOut)).toBe(false);
  });

  it('reads again on the primary when the replica dies before a probe sees it', async () => {
    await waitFor('the replica serves Bob', async () => {
      const before = stats().reads.replica;
      await channelHistory(bob);
      return stats().reads.replica > before;
    });
    const onPrimary = await ctx.db.message.count();
    const tried: Db[] = [];
    // The replica stops once the read is already sent to it: no probe can have seen it down.
    const countOnReplicaTurn = () =>
      readWith(ctx, bob.user.id, async (db) => {
        tried.push(db);
        if (db !== ctx.db && tried.length === 1) await replica.stop();
        return db.message.count();
      });
    const downBefore = stats().skips.down;
    let counted = await countOnReplicaTurn();
    if (tried[0] === ctx.db) {
      // That was the primary's turn; the next one is the replica's.
      tried.length = 0;
      counted = await countOnReplicaTurn();
    }
    expect(counted).toBe(onPrimary);
    expect(tried).toHaveLength(2);
    expect(tried[0]).not.toBe(ctx.db);
    expect(tried[1]).toBe(ctx.db);
    expect(stats().skips.down).toBeGreaterThan(downBefore);
    // Until a probe finds it back, its turns pass to the primary.
    for (let i = 0; i < 2; i++) expect(await channelHistory(bob)).toContain('before the pause');

    await replica.start();
    await replicaServesAgain();
  }, 90_000);

  it('does not read again on the primary after an error of the query itself', async () => {
    const tried: Db[] = [];
    const failing = () =>
      readWith(ctx, bob.user.id, async (db) => {
        tried.push(db);
        return db.$queryRawUnsafe('SELECT * FROM no_such_table');
      });
    const downBefore = stats().skips.down;
    await expect(failing()).rejects.toThrow(/no_such_table/);
    await expect(failing()).rejects.toThrow(/no_such_table/);
    // One turn each, the primary's and the replica's, and neither read ran twice.
    expect(tried).toHaveLength(2);
    expect(tried.filter((db) => db === ctx.db)).toHaveLength(1);
    expect(stats().skips.down).toBe(downBefore);
  });

  it('reads on the primary within the bound when a replica stops answering, until it answers', async () => {
    const relay = await startHangingRelay(Number(new URL(replica.url).port));
    const hanging = contextWithReplica(relay.url);
    try {
      const onPrimary = await ctx.db.message.count();
      // The primary's turn, once the first probe has found the replica up through the relay.
      expect(await readWith(hanging, bob.user.id, async (db) => db)).toBe(ctx.db);
      expect(replicaStats(hanging)?.skips.down).toBe(0);

      // The replica's turn: its read pool has no connection yet, and the one it opens gets no answer.
      relay.hang();
      await expectPrimaryAnswersWithinBound(hanging, onPrimary);

      // While the replica stays silent its turns pass to the primary at once.
      for (let i = 0; i < 2; i++) {
        const skipped = await timedCount(hanging);
        expect(skipped.tried).toHaveLength(1);
        expect(skipped.tried[0]).toBe(ctx.db);
        expect(skipped.ms).toBeLessThan(REPLICA_TIMEOUT_MS);
      }

      // The probe's own connection stays silent for good; a new one finds the replica back.
      relay.heal();
      await waitFor('the replica serves again', async () => {
        const { tried } = await timedCount(hanging);
        return tried.length === 1 && tried[0] !== ctx.db;
      });
    } finally {
      await relay.close();
      await closeReadReplicas(hanging);
    }
  }, 60_000);

  it('reads on the primary within the bound when a replica stalls a query', async () => {
    const relay = await startHangingRelay(Number(new URL(replica.url).port));
    const hanging = contextWithReplica(relay.url);
    try {
      // A read on the replica leaves a connection to it in its read pool.
      await waitFor('the replica serves Bob through the relay', async () => {
        const { tried } = await timedCount(hanging);
        return tried[0] !== ctx.db;
      });
      expect(await readWith(hanging, bob.user.id, async (db) => db)).toBe(ctx.db);

      // The replica's turn again, on that connection, which now answers nothing.
      relay.hang();
      const onPrimary = await ctx.db.message.count();
      await expectPrimaryAnswersWithinBound(hanging, onPrimary);
    } finally {
      await relay.close();
      await closeReadReplicas(hanging);
    }
  }, 60_000);
});
