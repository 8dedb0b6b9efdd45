import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../../generated/prisma/client';
import { serialiseQueries } from './serial-queries';

export type Db = PrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Omit<
  PrismaClient,
  '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'
>;

const poolsOfClients = new WeakMap<Db, Pool>();

/** The PostgreSQL pool under a client: its `waitingCount` says how many queries wait for a connection. */
export const poolOf = (db: Db): Pool | undefined => poolsOfClients.get(db);

export interface DbOptions {
  maxConnections?: number;
  idleSeconds?: number;
  /**
   * How long a query waits for a connection and then for each statement's answer before it fails
   * (node-postgres's own timers, so they end a wait on a server that answers nothing). Unset: as
   * long as TCP takes, minutes.
   */
  answerTimeoutMs?: number;
}

export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
    idleTimeoutMillis: (options.idleSeconds ?? 300) * 1000,
    connectionTimeoutMillis: options.answerTimeoutMs,
    query_timeout: options.answerTimeoutMs,
  });
  // One query at a time on each connection, whatever Prisma issues at once (serial-queries.ts).
  pool.on('connect', serialiseQueries);
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  // Outside production Prisma's default error format captures a stack trace on every query, to
  // point at the caller if the query fails; production runs 'minimal' already. The same
  // everywhere, so benchmarks and tests run what production runs.
  const db = new PrismaClient({ adapter, errorFormat: 'minimal' });
  poolsOfClients.set(db, pool);
  return db;
}
