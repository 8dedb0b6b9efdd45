import { Client } from 'pg';
import { Prisma } from '../../generated/prisma/client';
import { startTestContext, type TestContext } from '../../test/harness';
import { closeSqlPool, inSqlTransaction, sqlPool, sqlRows } from './sql';

/** The named statements the pool's one connection holds. */
const preparedOn = async (t: TestContext): Promise<string[]> =>
  (await sqlPool(t).query<{ name: string }>('SELECT name FROM pg_prepared_statements')).rows.map(
    (r) => r.name,
  );

const lookup = (id: number) => Prisma.sql`SELECT ${id}::int + 1 AS next`;

/** A context for the enclosing block whose plain pool holds one connection. */
function contextWithOneConnection(env: Record<string, string> = {}): () => TestContext {
  let t: TestContext;
  beforeAll(async () => {
    t = await startTestContext({ DATABASE_POOL_SIZE: '1', ...env });
  });
  afterAll(async () => {
    await closeSqlPool(t);
    await t.close();
  });
  return () => t;
}

describe('sqlRows with prepared', () => {
  const context = contextWithOneConnection();

  it('runs one named statement per text, parsed once however often it runs', async () => {
    const t = context();
    const pool = sqlPool(t);
    expect(await sqlRows(pool, lookup(1), { prepared: true })).toEqual([{ next: 2 }]);
    expect(await sqlRows(pool, lookup(41), { prepared: true })).toEqual([{ next: 42 }]);
    const named = (await preparedOn(t)).filter((name) => name.startsWith('s-'));
    expect(named).toHaveLength(1);
    // Another text gets a name of its own; a statement not marked prepared stays unnamed.
    await sqlRows(pool, Prisma.sql`SELECT ${1}::int AS one`, { prepared: true });
    await sqlRows(pool, Prisma.sql`SELECT ${2}::int AS two`);
    expect((await preparedOn(t)).filter((name) => name.startsWith('s-'))).toHaveLength(2);
  });
});

describe('sqlRows with prepared, where DATABASE_PREPARED_STATEMENTS is off', () => {
  const context = contextWithOneConnection({ DATABASE_PREPARED_STATEMENTS: 'false' });

  it('runs the statement unnamed (PgBouncer in transaction mode cannot keep one)', async () => {
    expect(await sqlRows(sqlPool(context()), lookup(1), { prepared: true })).toEqual([{ next: 2 }]);
    expect(await preparedOn(context())).toEqual([]);
  });
});

describe('inSqlTransaction when the server ends the connection', () => {
  const context = contextWithOneConnection();

  it('fails the transaction, not the process, and the pool connects again', async () => {
    const pool = sqlPool(context());
    const admin = new Client({ connectionString: context().config.databaseUrl });
    await admin.connect();
    try {
      const ended = inSqlTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // Listening before the termination: the end can arrive before admin.query resolves.
        const connectionEnded = new Promise((resolve) => client.once('end', resolve));
        // What a restart does to an open session, while the work waits on something else.
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
        await connectionEnded;
        await client.query('SELECT 1');
      });
      await expect(ended).rejects.toThrow();
      const again = await inSqlTransaction(pool, async (client) => client.query('SELECT 1 AS one'));
      expect(again.rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
    }
  });
});
