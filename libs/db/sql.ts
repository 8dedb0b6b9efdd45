import { Pool, type PoolClient } from 'pg';
import type { AppContext } from '../core/context';
import { databaseUnreachable } from './errors';

const pools = new WeakMap<AppContext, Pool>();

/**
 * A plain PostgreSQL pool for the few queries of the event-queue tier's steady state (credential
 * checks, the outbox sweeper, probes), made on first use. Prisma's client costs a process over
 * 100 MB once it has run a query; an events process that never needs the model then never
 * builds it (`ctx.db` is made on first use too). Idle connections close after
 * DATABASE_IDLE_SECONDS, and they do not keep a process alive.
 */
export function sqlPool(ctx: AppContext): Pool {
  let pool = pools.get(ctx);
  if (!pool) {
    pool = new Pool({
      connectionString: ctx.config.databaseUrl,
      max: ctx.config.databasePoolSize,
      idleTimeoutMillis: ctx.config.databaseIdleSeconds * 1000,
      allowExitOnIdle: true,
    });
    // An idle connection the server dropped (a restart): the next query opens another.
    pool.on('error', (err) =>
      // At debug during an outage: the process's store watch logs it once.
      ctx.log[databaseUnreachable(err) ? 'debug' : 'warn'](
        'db',
        'idle PostgreSQL connection lost',
        {
          error: err.message,
        },
      ),
    );
    pools.set(ctx, pool);
  }
  return pool;
}

/** Closes the context's pool, if it made one. */
export async function closeSqlPool(ctx: AppContext): Promise<void> {
  const pool = pools.get(ctx);
  pools.delete(ctx);
  await pool?.end();
}

/**
 * Runs `work` in one transaction on a client of `pool` (BEGIN ... COMMIT) and returns what it
 * returns. When anything throws it rolls back (a failed ROLLBACK is ignored: the first error is
 * the one worth reporting) and rethrows; the client goes back to the pool either way.
 */
export async function inSqlTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
