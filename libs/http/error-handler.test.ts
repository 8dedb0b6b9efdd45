import { PrismaPg } from '@prisma/adapter-pg';
import express from 'express';
import request from 'supertest';
import { createApiApp } from '../../apps/api/app';
import { createDb } from '../db/client';
import { closeSqlPool, sqlPool } from '../db/sql';
import { connectRedis } from '../redis/connect';
import { makeRealm, makeUser } from '../../test/factories';
import { databaseUrl } from '../../test/databases';
import { startTestContext, type TestContext } from '../../test/harness';
import { errorHandler } from './error-handler';

let t: TestContext;

beforeAll(async () => {
  t = await startTestContext();
});
afterAll(async () => {
  await t.close();
});

/** What the error handler answers for `err` thrown by a route. */
function answerTo(err: unknown) {
  const app = express();
  app.get('/', () => {
    throw err;
  });
  app.use(errorHandler(t.log));
  return request(app).get('/');
}

const rejection = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );

const notReady = {
  result: 'error',
  code: 'SERVER_NOT_READY',
  msg: 'The server is temporarily unavailable; try again shortly',
};

describe('error handler: PostgreSQL or Redis out of reach', () => {
  it('answers 503 SERVER_NOT_READY when nothing listens at the database address', async () => {
    const closed = createDb('postgresql://postgres@127.0.0.1:1/chat');
    try {
      const res = await answerTo(await rejection(closed.$queryRaw`SELECT 1`));
      expect(res.status).toBe(503);
      expect(res.body).toEqual(notReady);
    } finally {
      await closed.$disconnect();
    }
  });

  it('answers 503 when PostgreSQL ends the connection mid-query (its restart)', async () => {
    const err = await rejection(t.db.$queryRaw`SELECT pg_terminate_backend(pg_backend_pid())`);
    const res = await answerTo(err);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(notReady);
  });

  it('answers 503 for the next query on a connection PostgreSQL ended', async () => {
    const err = await rejection(
      t.db.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT pg_terminate_backend(pg_backend_pid())`.catch(() => undefined);
        await tx.$queryRaw`SELECT 1`;
      }),
    );
    const res = await answerTo(err);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(notReady);
  });

  it("answers 503 for the adapter's own error, which Prisma passes on when COMMIT fails", async () => {
    // What the adapter throws on a connection PostgreSQL's shutdown ended, as in the chaos run.
    const adapter = await new PrismaPg({ connectionString: databaseUrl(t.databaseName) }).connect();
    try {
      const tx = await adapter.startTransaction();
      const err = await rejection(
        tx.executeRaw({
          sql: 'SELECT pg_terminate_backend(pg_backend_pid())',
          args: [],
          argTypes: [],
        }),
      );
      await tx.rollback();
      expect((err as Error).name).toBe('DriverAdapterError');
      const res = await answerTo(err);
      expect(res.status).toBe(503);
      expect(res.body).toEqual(notReady);
    } finally {
      await adapter.dispose();
    }
  });

  it('answers 503 for plain SQL when nothing listens at the database address', async () => {
    const closed = {
      ...t,
      config: { ...t.config, databaseUrl: 'postgresql://postgres@127.0.0.1:1/chat' },
    };
    try {
      const res = await answerTo(await rejection(sqlPool(closed).query('SELECT 1')));
      expect(res.status).toBe(503);
      expect(res.body).toEqual(notReady);
    } finally {
      await closeSqlPool(closed);
    }
  });

  it('answers 503 for plain SQL when PostgreSQL ends the connection (its restart)', async () => {
    const pool = sqlPool(t);
    const err = await rejection(pool.query('SELECT pg_terminate_backend(pg_backend_pid())'));
    expect((err as { code?: string }).code).toBe('57P01');
    const res = await answerTo(err);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(notReady);
  });

  it('answers 503 when Redis does not answer', async () => {
    const redis = connectRedis({ redisUrl: 'redis://127.0.0.1:1/0', redisCluster: null });
    redis.on('error', () => undefined);
    try {
      const res = await answerTo(await rejection(redis.get('k')));
      expect(res.status).toBe(503);
      expect(res.body).toEqual(notReady);
    } finally {
      redis.disconnect();
    }
  });

  it('still answers 500 for a bug', async () => {
    const res = await answerTo(new TypeError('x is undefined'));
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('INTERNAL_SERVER_ERROR');
  });

  it('answers a request at once with 503 while the database is down', async () => {
    const org = await makeRealm(t);
    const user = await makeUser(t, org.realm);
    const closed = createDb('postgresql://postgres@127.0.0.1:1/chat');
    try {
      const app = createApiApp({ ...t, db: closed });
      const started = Date.now();
      const res = await request(app)
        .get('/api/v1/users/me')
        .set('Host', org.host)
        .set('Authorization', user.auth);
      expect(res.status).toBe(503);
      expect(res.body).toEqual(notReady);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await closed.$disconnect();
    }
  });
});
