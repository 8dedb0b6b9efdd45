import { startTestContext, type TestContext } from '../../test/harness';
import { createDb, poolOf } from './client';
import { closeSqlPool, sqlPool } from './sql';

let t: TestContext;

beforeAll(async () => {
  t = await startTestContext({ DATABASE_IDLE_SECONDS: '1' });
});
afterAll(async () => {
  await closeSqlPool(t);
  await t.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('pooled PostgreSQL connections', () => {
  it('stay open while idle for DATABASE_IDLE_SECONDS, then close, in both pools', async () => {
    const db = createDb(t.config.databaseUrl, { idleSeconds: t.config.databaseIdleSeconds });
    try {
      await db.$queryRaw`SELECT 1`;
      await sqlPool(t).query('SELECT 1');
      await sleep(300);
      expect(poolOf(db)?.totalCount).toBe(1);
      expect(sqlPool(t).totalCount).toBe(1);
      await sleep(1_500);
      expect(poolOf(db)?.totalCount).toBe(0);
      expect(sqlPool(t).totalCount).toBe(0);
    } finally {
      await db.$disconnect();
    }
  });
});
