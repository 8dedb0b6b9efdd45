import type { AppContext } from '../domain/context';
import type { Tx } from '../db/client';
import { appendToDomainStream } from './domain-stream';

/** A domain event as clients receive it, minus the per-queue `id`. */
export interface ClientEvent {
  type: string;
  [field: string]: unknown;
}

/** Collects the events of one transaction; they are written to the outbox inside it. */
export class EventSink {
  readonly outboxIds: bigint[] = [];

  constructor(private readonly tx: Tx) {}

  async emit(realmId: number, event: ClientEvent, users: number[]): Promise<void> {
    if (users.length === 0) return;
    const row = await this.tx.outboxEvent.create({
      data: { realmId, eventJson: event as object, usersJson: users },
      select: { id: true },
    });
    this.outboxIds.push(row.id);
  }
}

/** A committed outbox row, as both the after-commit publisher and the sweeper read it. */
export interface CommittedEvent {
  id: bigint;
  realmId: number;
  users: number[];
  event: ClientEvent;
  xid: bigint;
}

/**
 * Appends committed outbox rows to the Redis domain streams and marks them published. A crash
 * between commit and this call leaves rows unpublished; the sweeper in the events tier sends them.
 */
export async function publishOutbox(ctx: AppContext, ids: bigint[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await ctx.db.outboxEvent.findMany({
    where: { id: { in: ids }, publishedAt: null },
    orderBy: { id: 'asc' },
  });
  if (rows.length === 0) return;
  await appendToDomainStream(
    ctx,
    rows.map((row) => ({
      id: row.id,
      realmId: row.realmId,
      users: row.usersJson as number[],
      event: row.eventJson as unknown as ClientEvent,
      xid: row.xid,
    })),
  );
  await ctx.db.outboxEvent.updateMany({
    where: { id: { in: rows.map((r) => r.id) } },
    data: { publishedAt: new Date() },
  });
}

/**
 * One domain action = one transaction: the rows and their events commit together, and the
 * events are published after commit.
 */
export async function inTransaction<T>(
  ctx: AppContext,
  action: (tx: Tx, events: EventSink) => Promise<T>,
): Promise<T> {
  let sink: EventSink | null = null;
  const result = await ctx.db.$transaction(
    async (tx) => {
      sink = new EventSink(tx);
      return action(tx, sink);
    },
    { timeout: 30000, maxWait: 10000 },
  );
  const ids = (sink as EventSink | null)?.outboxIds ?? [];
  try {
    await publishOutbox(ctx, ids);
  } catch (err) {
    ctx.log.warn('outbox', 'publish after commit failed; the sweeper will retry', {
      error: err instanceof Error ? err.message : String(err),
    });
  }
  return result;
}
