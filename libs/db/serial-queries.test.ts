import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Pool } from 'pg';
import { startTestContext, type TestContext } from '../../test/harness';
import { databaseUrl } from '../../test/databases';

/**
 * Issue 46: node-postgres 8 warns, and 9 will refuse, a query given to a connection that is
 * still running another. Prisma's query interpreter does that inside transactions; every
 * connection of `createDb` runs its queries one after another instead. The check sits below
 * that, in node-postgres itself: each query it is handed records whether the connection was busy.
 */
interface PgInternals {
  _activeQuery: unknown;
  _queryQueue: unknown[];
}

const seen = { queries: 0, whileBusy: 0 };
// eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped, applied to its client
const original = Client.prototype.query;
beforeAll(() => {
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const pg = this as unknown as PgInternals;
    seen.queries += 1;
    if (pg._activeQuery || pg._queryQueue.length > 0) seen.whileBusy += 1;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
});
afterAll(() => {
  Client.prototype.query = original;
});

let t: TestContext;
beforeAll(async () => {
  t = await startTestContext();
});
afterAll(async () => {
  await t.close();
});

describe("a transaction's connection", () => {
  it('is never handed a query while it runs another', async () => {
    seen.queries = 0;
    seen.whileBusy = 0;
    const answers = await t.db.$transaction(async (tx) => {
      const slept = await Promise.all(
        Array.from(
          { length: 6 },
          (_, i) => tx.$queryRaw<{ i: number }[]>`SELECT ${i}::int AS i, pg_sleep(0.01)::text`,
        ),
      );
      const [realms, users] = await Promise.all([
        tx.realm.findMany({ include: { streams: true } }),
        tx.user.findMany({ include: { realm: true } }),
      ]);
      return { slept: slept.map((rows) => rows[0].i), realms, users };
    });
    expect(answers.slept).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Array.isArray(answers.realms) && Array.isArray(answers.users)).toBe(true);
    expect(seen.queries).toBeGreaterThanOrEqual(8);
    expect(seen.whileBusy).toBe(0);
  });

  it('would be, on a plain node-postgres connection (the check can fail)', async () => {
    const pool = new Pool({ connectionString: databaseUrl(t.databaseName), max: 1 });
    try {
      const client = await pool.connect();
      seen.whileBusy = 0;
      await Promise.all([client.query('SELECT pg_sleep(0.01)'), client.query('SELECT 1')]);
      client.release();
      expect(seen.whileBusy).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
  });
});

describe('node-postgres', () => {
  it('is pinned below 9, which refuses a query on a busy connection', () => {
    const root = path.join(__dirname, '..', '..');
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies.pg).toMatch(/^(\^8\.|~8\.|8\.|>=8\.\d+\.\d+ <9)/);
    const installed = JSON.parse(
      readFileSync(path.join(root, 'node_modules', 'pg', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(installed.version.split('.')[0]).toBe('8');
  });
});
