import type { AppContext } from '../core/context';
import { appendToDomainStream } from './domain-stream';
import type { CommittedEvent } from './outbox';

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
  return ctx.db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<CommittedEvent[]>`
      SELECT id, realm_id AS "realmId", users_json AS users, event_json AS event, xid
      FROM outbox_events
      WHERE published_at IS NULL
        AND created_at < now() - make_interval(secs => ${olderThanMs / 1000}::double precision)
      ORDER BY id
      LIMIT ${batch}
      FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return 0;
    await appendToDomainStream(ctx, rows);
    await tx.$executeRaw`
      UPDATE outbox_events SET published_at = now() WHERE id = ANY(${rows.map((r) => r.id)}::bigint[])`;
    ctx.log.warn('outbox', 'sweeper published left-behind events', { count: rows.length });
    return rows.length;
  });
}

/** Runs the sweeper every `intervalMs` until stopped. */
export function startSweeper(ctx: AppContext, intervalMs = 2000): () => Promise<void> {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    current = sweepOutbox(ctx).catch((err: unknown) => {
      if (!stopped) {
        ctx.log.error('outbox', 'sweep failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    });
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await current;
  };
}
