import { Pool } from 'pg';
import { at } from '../core/at';
import type { AppContext } from '../core/context';
import type { Db } from './client';
import { sqlPool } from './sql';

/**
 * Reads that tolerate a little lag (message history and search, presence) may go to streaming
 * replicas (`DATABASE_REPLICA_URLS`), which take turns with the primary. The rule, in docs/scaling.md: a user reads its own writes.
 * After a request of the user's that may have written commits, the primary's WAL position is kept
 * in Redis for a minute (`noteWrite`); a read of that user's goes to a replica only once the
 * replica has replayed past it, else to the primary. A replica that is down, or lags behind where
 * the primary was `DATABASE_REPLICA_MAX_LAG_SECONDS` ago, is skipped.
 */

/** How often each process asks the primary and its replicas where their WAL is. */
const PROBE_MS = 250;
/** A probe that takes longer than this counts the replica as down. */
const PROBE_TIMEOUT_MS = 1000;
/** A user's last write position is kept this long: far longer than any replica may lag. */
const WRITE_TTL_SECONDS = 60;

/** Why a read went where it went; counted for the `chat_db_replica_reads_total` metric. */
export type ReadTarget = 'replica' | 'primary_turn' | 'primary_no_replica' | 'primary_own_write';
export type ReplicaSkip = 'down' | 'lagging' | 'behind_own_write';

interface Replica {
  url: string;
  db: Db;
  /** A pool of one connection for the probe, so a busy read pool never delays it. */
  probe: Pool;
  /** The last WAL position it had replayed, as a number; null until the first probe answers. */
  replayed: bigint | null;
  up: boolean;
  lagging: boolean;
}

export interface ReplicaStats {
  reads: Record<ReadTarget, number>;
  skips: Record<ReplicaSkip, number>;
  /** Per replica: seconds behind the primary's position, as of the last probe (0: caught up). */
  lagSeconds: Map<string, number>;
}

interface ReadReplicas {
  replicas: Replica[];
  primaryProbe: Pool;
  /** The primary's WAL position at recent probes, oldest first, to judge each replica's lag. */
  primaryHistory: { at: number; lsn: bigint }[];
  next: number;
  timer: NodeJS.Timeout;
  /** The first probe: reads wait for it, so a replica not yet asked is not counted down. */
  probed: Promise<void>;
  stats: ReplicaStats;
}

const byContext = new WeakMap<AppContext, ReadReplicas>();

/** `X/Y` (two hex numbers) as one comparable number. */
export function parseLsn(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

function writeKey(ctx: AppContext, userId: number): string {
  return `${ctx.config.redisPrefix}wal:${userId}`;
}

function replicasOf(ctx: AppContext): ReadReplicas | null {
  const urls = ctx.config.databaseReplicaUrls;
  if (urls.length === 0) return null;
  let state = byContext.get(ctx);
  if (!state) {
    // Loaded on first use, as libs/runtime/create-app-context.ts loads Prisma: processes without replicas
    // never need it here.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load in CommonJS
    const { createDb } = require('./client') as typeof import('./client');
    const created: ReadReplicas = {
      replicas: urls.map((url) => ({
        url,
        db: createDb(url, {
          maxConnections: ctx.config.databasePoolSize,
          idleSeconds: ctx.config.databaseIdleSeconds,
          answerTimeoutMs: ctx.config.databaseReplicaTimeoutMs,
        }),
        probe: probePool(url),
        replayed: null,
        up: false,
        lagging: false,
      })),
      primaryProbe: probePool(ctx.config.databaseUrl),
      primaryHistory: [],
      next: 0,
      timer: setInterval(() => void probeAll(ctx, created), PROBE_MS).unref(),
      probed: Promise.resolve(),
      stats: {
        reads: { replica: 0, primary_turn: 0, primary_no_replica: 0, primary_own_write: 0 },
        skips: { down: 0, lagging: 0, behind_own_write: 0 },
        lagSeconds: new Map(),
      },
    };
    byContext.set(ctx, created);
    created.probed = probeAll(ctx, created);
    state = created;
  }
  return state;
}

function probePool(url: string): Pool {
  const pool = new Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    statement_timeout: PROBE_TIMEOUT_MS,
    // The server's statement_timeout cannot end a wait on a server that answers nothing; without
    // this a silent probe connection would hold the pool's one slot for good.
    query_timeout: PROBE_TIMEOUT_MS,
  });
  // An idle probe connection that a restart ends must not end the process.
  pool.on('error', () => undefined);
  return pool;
}

async function probeAll(ctx: AppContext, state: ReadReplicas): Promise<void> {
  const now = Date.now();
  try {
    const { rows } = await state.primaryProbe.query<{ lsn: string }>(
      'SELECT pg_current_wal_lsn()::text AS lsn',
    );
    state.primaryHistory.push({ at: now, lsn: parseLsn(at(rows, 0).lsn) });
  } catch {
    // Without the primary's position the replicas' lag is judged on the positions known so far.
  }
  const maxLagMs = ctx.config.databaseReplicaMaxLagSeconds * 1000;
  while (state.primaryHistory.length > 1 && at(state.primaryHistory, 1).at <= now - maxLagMs) {
    state.primaryHistory.shift();
  }
  // The primary's position maxLag ago: a replica that has not replayed that far lags too much.
  const oldest = state.primaryHistory[0];
  const bound = oldest && oldest.at <= now - maxLagMs ? oldest : null;
  const latest = state.primaryHistory.at(-1);
  await Promise.all(
    state.replicas.map(async (replica) => {
      try {
        const { rows } = await replica.probe.query<{ lsn: string | null }>(
          'SELECT pg_last_wal_replay_lsn()::text AS lsn',
        );
        const { lsn } = at(rows, 0);
        if (lsn === null) throw new Error('not a standby');
        replica.replayed = parseLsn(lsn);
        replica.up = true;
      } catch {
        replica.up = false;
        return;
      }
      replica.lagging = bound !== null && (replica.replayed ?? 0n) < bound.lsn;
      state.stats.lagSeconds.set(replica.url, replicaLagSeconds(state, replica, latest, now));
    }),
  );
}

/** Seconds since the primary was at the position the replica has replayed (0 if caught up). */
function replicaLagSeconds(
  state: ReadReplicas,
  replica: Replica,
  latest: { at: number; lsn: bigint } | undefined,
  now: number,
): number {
  if (!latest || replica.replayed === null || replica.replayed >= latest.lsn) return 0;
  const passed = state.primaryHistory.find((sample) => sample.lsn > (replica.replayed ?? 0n));
  return passed ? (now - passed.at) / 1000 : 0;
}

interface Choice {
  replica: Replica | null;
  /** Where the read goes if it is not on a replica. */
  target: Exclude<ReadTarget, 'replica'>;
}

/**
 * Where `userId` reads. The primary and the replicas take turns; a replica that is down, lagging
 * or not yet past the user's last write passes its turn to the next.
 */
async function choose(ctx: AppContext, state: ReadReplicas, userId: number): Promise<Choice> {
  await state.probed;
  const ownWrite = await ctx.redis.get(writeKey(ctx, userId));
  const mustReach = ownWrite === null ? null : BigInt(ownWrite);
  const turns = state.replicas.length + 1;
  let behindOwnWrite = false;
  for (let i = 0; i < turns; i++) {
    const turn = (state.next + i) % turns;
    const replica = state.replicas[turn - 1];
    if (replica === undefined) {
      // The primary's own turn: it is always current, so no other candidate is needed.
      if (i === 0) {
        state.next = (turn + 1) % turns;
        return { replica: null, target: 'primary_turn' };
      }
      continue;
    }
    if (!replica.up) {
      state.stats.skips.down++;
    } else if (replica.lagging) {
      state.stats.skips.lagging++;
    } else if (mustReach !== null && (replica.replayed ?? 0n) < mustReach) {
      state.stats.skips.behind_own_write++;
      behindOwnWrite = true;
    } else {
      state.next = (turn + 1) % turns;
      return { replica, target: 'primary_no_replica' };
    }
  }
  state.next = (state.next + 1) % turns;
  return { replica: null, target: behindOwnWrite ? 'primary_own_write' : 'primary_no_replica' };
}

/** Codes of a connection that failed or ended, not of a query: node's, PostgreSQL's, Prisma's. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  'P1001',
  'P1002',
  'P1008',
  'P1017',
]);
const CONNECTION_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
/**
 * node-postgres's own connection errors carry no code; 'Query read timeout' is its timer on a
 * statement's answer (`query_timeout`, set on the replicas' read pools only).
 */
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout/i;

/**
 * Whether a read failed because the server could not be reached, ended the connection (class 08,
 * 57P01-57P03) or did not answer in time, looked for through Prisma's wrapping of the driver's
 * error. A failure of the query itself (syntax, constraint, the server's statement timeout) is
 * not one.
 */
export function isConnectionError(error: unknown): boolean {
  const pending = [error];
  for (let depth = 0; depth < 8 && pending.length > 0; depth++) {
    const found = pending.pop();
    if (typeof found !== 'object' || found === null) continue;
    const { code, originalCode, kind, message, cause, meta } = found as Record<string, unknown>;
    for (const one of [code, originalCode]) {
      if (typeof one === 'string' && (CONNECTION_CODES.has(one) || /^08[0-9A-Z]{3}$/.test(one))) {
        return true;
      }
    }
    if (typeof kind === 'string' && CONNECTION_KINDS.has(kind)) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
    pending.push(cause, (meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError);
  }
  return false;
}

/**
 * Runs `read` for `userId` on the primary or a replica (see `choose`). One Redis read when
 * replicas are configured; none otherwise. A replica whose connection fails, or that leaves a
 * connection or a statement unanswered for `DATABASE_REPLICA_TIMEOUT_MS`, is counted down at once
 * and the read runs again on the primary: the probe would see it down only within `PROBE_MS`
 * (plus its own timeout for a silent one), and until then every read sent there would fail or
 * wait. `read` must only read.
 */
export async function readWith<T>(
  ctx: AppContext,
  userId: number,
  read: (db: Db) => Promise<T>,
): Promise<T> {
  const state = replicasOf(ctx);
  if (!state) return read(ctx.db);
  const { replica, target } = await choose(ctx, state, userId);
  if (replica === null) {
    state.stats.reads[target]++;
    return read(ctx.db);
  }
  try {
    const result = await read(replica.db);
    state.stats.reads.replica++;
    return result;
  } catch (error) {
    if (!isConnectionError(error)) {
      state.stats.reads.replica++;
      throw error;
    }
    replica.up = false;
    state.stats.skips.down++;
    state.stats.reads.primary_no_replica++;
    ctx.log.warn('db', 'read replica failed; read again on the primary', {
      replica: new URL(replica.url).host,
      error: error instanceof Error ? error.message : String(error),
    });
    return read(ctx.db);
  }
}

/**
 * Called once a request of the user's that may have written has been carried out, before it is
 * answered: the user's next reads wait for a replica that has replayed this far.
 */
export async function noteWrite(ctx: AppContext, userId: number): Promise<void> {
  const state = replicasOf(ctx);
  if (!state) return;
  const { rows } = await sqlPool(ctx).query<{ lsn: string }>(
    'SELECT pg_current_wal_lsn()::text AS lsn',
  );
  await ctx.redis.set(
    writeKey(ctx, userId),
    parseLsn(at(rows, 0).lsn).toString(),
    'EX',
    WRITE_TTL_SECONDS,
  );
}

/** What the metrics report; null without replicas. */
export function replicaStats(ctx: AppContext): ReplicaStats | null {
  return byContext.get(ctx)?.stats ?? null;
}

export async function closeReadReplicas(ctx: AppContext): Promise<void> {
  const state = byContext.get(ctx);
  if (!state) return;
  byContext.delete(ctx);
  clearInterval(state.timer);
  await state.primaryProbe.end();
  for (const replica of state.replicas) {
    await replica.probe.end();
    await replica.db.$disconnect();
  }
}
