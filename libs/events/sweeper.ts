import type { AppContext } from '../core/context';
import { inSqlTransaction, sqlPool } from '../db/sql';
import { appendToDomainStream } from './domain-stream';
import type { CommittedEvent } from './outbox';
import { logFailure } from '../stores/failures';

/**
 * Publishes outbox rows that a crashed (or failing) API process committed but never published.
 * Rows are locked with SKIP LOCKED, so replicas sweeping at once take different rows; a row
 * published twice anyway is delivered once thanks to the dispatcher's dedupe key.
 */
export async function sweepOutbox(
  ctx: AppContext,
  olderThanMs = 3000,
  batch = 500,
): Promise<number> {
  // Plain SQL: every events process sweeps, and Prisma would cost it over 100 MB (see sqlPool).
  const swept = await inSqlTransaction(sqlPool(ctx), async (client) => {
    const { rows } = await client.query<{
      id: string;
      realmId: number;
      users: number[];
      event: CommittedEvent['event'];
      xid: string;
    }>(
      `SELECT id, realm_id AS "realmId", users_json AS users, event_json AS event, xid
       FROM outbox_events
       WHERE published_at IS NULL
         AND created_at < now() - make_interval(secs => $1::double precision)
       ORDER BY id
       LIMIT $2
       FOR UPDATE SKIP LOCKED`,
      [olderThanMs / 1000, batch],
    );
    if (rows.length) {
      await appendToDomainStream(
        ctx,
        rows.map((row) => ({ ...row, id: BigInt(row.id), xid: BigInt(row.xid) })),
      );
      await client.query(
        'UPDATE outbox_events SET published_at = now() WHERE id = ANY($1::bigint[])',
        [rows.map((r) => r.id)],
      );
    }
    return rows.length;
  });
  if (swept) {
    ctx.log.warn('outbox', 'sweeper published left-behind events', { count: swept });
  }
  return swept;
}

/**
 * Runs the sweeper every `intervalMs` until stopped, at the times `mine()` says this process is
 * the one to sweep (one replica suffices; SKIP LOCKED keeps two from taking the same rows).
 */
export function startSweeper(
  ctx: AppContext,
  mine: () => boolean = () => true,
  intervalMs = 2000,
): () => Promise<void> {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (!mine()) return;
    current = sweepOutbox(ctx).catch((err: unknown) => {
      if (!stopped) {
        logFailure(ctx.log, 'outbox', 'sweep failed', err);
      }
    });
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await current;
  };
}
