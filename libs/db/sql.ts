import { createHash } from 'node:crypto';
import { Pool, types, type PoolClient } from 'pg';
import type { Prisma } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import { databaseUnreachable } from './errors';
import { retryingConflicts } from './retry';

const pools = new WeakMap<AppContext, Pool>();
/** Whether a pool's connections may keep named statements (DATABASE_PREPARED_STATEMENTS). */
const preparing = new WeakMap<Pool, boolean>();
const CONNECTION_WAIT_MS = 10_000;

/**
 * A plain PostgreSQL pool, made on first use, for the statements where Prisma's own work would
 * cost more than the statement: the event-queue tier's steady state (credential checks, the
 * outbox sweeper, probes) and the hot path of the api (a channel message's reads and its one
 * write, `/users/me`). Prisma's client costs a process over 100 MB once it has run a query; an
 * events process that never needs the model then never builds it (`ctx.db` is made on first use
 * too). Idle connections close after DATABASE_IDLE_SECONDS, and they do not keep a process alive.
 */
export function sqlPool(ctx: AppContext): Pool {
  let pool = pools.get(ctx);
  if (!pool) {
    pool = new Pool({
      connectionString: ctx.config.databaseUrl,
      max: ctx.config.databasePoolSize,
      idleTimeoutMillis: ctx.config.databaseIdleSeconds * 1000,
      // As long as a Prisma transaction waits for a connection (`maxWait`): a wait past it fails
      // the request with 503 (`connectionWaitTimedOut`) instead of growing without bound.
      connectionTimeoutMillis: CONNECTION_WAIT_MS,
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
    preparing.set(pool, ctx.config.databasePreparedStatements);
  }
  return pool;
}

/** How many queries wait for a connection of the context's pool (0 before it is made). */
export const sqlPoolWaiting = (ctx: AppContext): number => pools.get(ctx)?.waitingCount ?? 0;

const INT8_OID = 20;
/** Column types as Prisma's raw queries read them: int8 as bigint, the rest as pg does. */
const PRISMA_TYPES = {
  getTypeParser: ((oid: number, format?: 'text') =>
    oid === INT8_OID ? BigInt : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

/** Names given to statement texts, by text; past the cap further texts run unnamed. */
const statementNames = new Map<string, string>();
/**
 * Every named text stays prepared on each pooled connection that ran it until the connection
 * closes: the cap bounds that memory in PostgreSQL should a caller's text vary after all.
 */
const MAX_STATEMENT_NAMES = 200;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_STATEMENT_NAMES) {
    name = `s-${createHash('sha1').update(text).digest('hex')}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Runs a statement built with `Prisma.sql` on plain pg, its rows typed as `$queryRaw` would
 * return them: code that writes its SQL once runs it in a Prisma transaction or, without
 * Prisma's per-query work, on a pool.
 *
 * `prepared`: the statement's text is the same on every call of its code path (lists go in as
 * arrays, never spliced into the text), so on a pool of `sqlPool`'s that may keep named
 * statements it runs as one, named after its text: PostgreSQL then parses and plans it once per
 * connection instead of on every call, a fifth of its CPU per channel message.
 */
export async function sqlRows<T>(
  db: Pool | PoolClient,
  sql: Prisma.Sql,
  { prepared = false }: { prepared?: boolean } = {},
): Promise<T[]> {
  const name = prepared && preparing.get(db as Pool) ? statementName(sql.text) : undefined;
  const { rows } = await db.query({
    name,
    text: sql.text,
    values: sql.values,
    types: PRISMA_TYPES,
  });
  return rows as T[];
}

/** Closes the context's pool, if it made one. */
export async function closeSqlPool(ctx: AppContext): Promise<void> {
  const pool = pools.get(ctx);
  pools.delete(ctx);
  await pool?.end();
}

/**
 * Runs `work` in one transaction on a client of `pool` (BEGIN ... COMMIT) and returns what it
 * returns; a deadlock or serialization failure runs it again (`retryingConflicts`). When
 * anything throws it rolls back (a failed ROLLBACK is ignored: the first error is the one worth
 * reporting) and rethrows; the client goes back to the pool either way, or is dropped if its
 * connection was lost.
 *
 * The pool listens for a connection's errors only while the client is idle in the pool. `work`
 * may wait on other things between its statements (the job relay hands rows to Redis inside its
 * transaction): a server that ends the connection then (a PostgreSQL restart) would raise an
 * 'error' nobody listens for, which ends the process. Here it fails the transaction instead.
 */
export function inSqlTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return retryingConflicts(() => sqlTransactionOnce(pool, work));
}

async function sqlTransactionOnce<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  const connection: { lost?: Error } = {};
  const onLost = (err: Error) => {
    connection.lost = err;
  };
  client.on('error', onLost);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.removeListener('error', onLost);
    client.release(connection.lost);
  }
}
