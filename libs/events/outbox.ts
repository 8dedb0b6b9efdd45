import { Prisma } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import type { Tx } from '../db/client';
import { retryingConflicts } from '../db/retry';
import { sqlPool, sqlRows } from '../db/sql';
import type { DomainEvent } from '../protocol/event-catalogue';
import { appendToDomainStream } from './domain-stream';
import type { JobNameValue, JobType } from '../jobs/job-catalogue';
import { insertJobRows, jobRows, type JobRows, type JobToWrite } from '../jobs/outbox';

/** A committed outbox row, as both the after-commit publisher and the sweeper read it. */
export interface CommittedEvent {
  id: bigint;
  realmId: number;
  users: number[];
  event: DomainEvent;
  xid: bigint;
}

interface PendingEvent {
  realmId: number;
  event: DomainEvent;
  users: number[];
}

/** Runs one statement where the events are written: a transaction's, or a pool's on its own. */
export type SqlRunner = <T>(sql: Prisma.Sql) => Promise<T[]>;

/**
 * Collects the events of one transaction, and the jobs it owes, and writes them all to the
 * outboxes in one statement at its end (`flush`): a send then costs one INSERT for its event and
 * its notification job, not one each. The rows are kept, so publishing after commit needs no
 * second read of them. Rows of the action's own can join that statement (`write`), so that an
 * action with nothing else to write commits in one statement with no transaction around it.
 */
export class EventSink {
  readonly rows: CommittedEvent[] = [];
  private pending: PendingEvent[] = [];
  private jobs: JobRows[] = [];
  private writes: Prisma.Sql[] = [];

  constructor(private readonly run: SqlRunner) {}

  /** An event for `users`, written with the transaction's other events when it ends. */
  async emit(realmId: number, event: DomainEvent, users: number[]): Promise<void> {
    if (users.length > 0) this.pending.push({ realmId, event, users });
  }

  /** Jobs that must exist exactly when the transaction commits (see `writeJobs`). */
  owe<N extends JobNameValue, P>(job: JobType<N, P>, jobs: JobToWrite<P>[]): void {
    if (jobs.length > 0) this.jobs.push(jobRows(job, jobs));
  }

  /**
   * Data-modifying common table expressions (`name AS (INSERT ...)`, names other than
   * `owed_<n>`), written by the flush's statement: they commit exactly with the events.
   */
  write(ctes: Prisma.Sql): void {
    this.writes.push(ctes);
  }

  /** Writes what was written, emitted and owed in one statement: the transaction's, or alone. */
  async flush(): Promise<void> {
    const events = this.pending;
    const owed = [
      ...this.writes,
      ...this.jobs.map(
        (rows, i) => Prisma.sql`${Prisma.raw(`owed_${i}`)} AS (${insertJobRows(rows)})`,
      ),
    ];
    this.pending = [];
    this.jobs = [];
    this.writes = [];
    if (events.length === 0) {
      if (owed.length) await this.run(Prisma.sql`WITH ${Prisma.join(owed)} SELECT 1`);
      return;
    }
    // JSON text as parameters: Prisma's own encoding of a 10,000-recipient list took 10-15 ms.
    const insertEvents = Prisma.sql`
      INSERT INTO outbox_events (realm_id, event_json, users_json)
      SELECT r, e::jsonb, u::jsonb
      FROM unnest(${events.map((e) => e.realmId)}::int[],
                  ${events.map((e) => JSON.stringify(e.event))}::text[],
                  ${events.map((e) => JSON.stringify(e.users))}::text[])
           WITH ORDINALITY AS t(r, e, u, n)
      ORDER BY n
      RETURNING id, xid`;
    const written = await this.run<{ id: bigint; xid: bigint }>(
      owed.length ? Prisma.sql`WITH ${Prisma.join(owed)} ${insertEvents}` : insertEvents,
    );
    // Identities are drawn in the order the rows are inserted, which the ORDER BY fixes.
    written.sort((a, b) => (a.id < b.id ? -1 : 1));
    events.forEach(({ realmId, users, event }, i) =>
      this.rows.push({ id: written[i].id, realmId, users, event, xid: written[i].xid }),
    );
  }
}

/** How long published rows wait to be marked together: far below the sweeper's 3 s. */
const MARK_WINDOW_MS = 250;

/**
 * Published outbox rows of one process, marked with one UPDATE per window instead of one per
 * send. A mark only keeps the sweeper from publishing a row again, which the dispatcher's dedupe
 * makes harmless, so a send does not wait for it.
 */
class PublishedMarks {
  private ids: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The UPDATEs run one after another, so a flush returns once every earlier mark is written. */
  private written: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: AppContext) {}

  add(rows: CommittedEvent[]): void {
    for (const row of rows) this.ids.push(String(row.id));
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), MARK_WINDOW_MS);
    // Marks left at exit are the sweeper's, as after a crash.
    this.timer.unref();
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ids = this.ids;
    this.ids = [];
    if (ids.length > 0) this.written = this.written.then(() => this.mark(ids));
    return this.written;
  }

  private async mark(ids: string[]): Promise<void> {
    try {
      // Plain pg, a named statement where allowed: Prisma's own work for it cost about twice the
      // statement's.
      await sqlPool(this.ctx).query({
        name: this.ctx.config.databasePreparedStatements ? 'outbox-published' : undefined,
        text: 'UPDATE outbox_events SET published_at = now() WHERE id = ANY($1::bigint[])',
        values: [ids],
      });
    } catch (err) {
      this.ctx.log.warn('outbox', 'marking published events failed; the sweeper will resend', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

const marks = new WeakMap<AppContext, PublishedMarks>();

/**
 * Marks now the rows this process published and has not marked yet, and waits for the marks
 * already under way (at close, in tests).
 */
export async function flushPublishedMarks(ctx: AppContext): Promise<void> {
  await marks.get(ctx)?.flush();
}

/**
 * Appends committed outbox rows to the Redis domain streams, and has them marked published. A
 * crash between commit and this call leaves rows unpublished; the sweeper in the events tier
 * sends them (a row both publish is delivered once: the dispatcher dedupes by outbox id).
 */
export async function publishOutbox(ctx: AppContext, rows: CommittedEvent[]): Promise<void> {
  if (rows.length === 0) return;
  await appendToDomainStream(ctx, rows);
  let published = marks.get(ctx);
  if (!published) marks.set(ctx, (published = new PublishedMarks(ctx)));
  published.add(rows);
}

/**
 * One domain action = one transaction: the rows and their events commit together, and the
 * events are published after commit. An action that reads a row and writes it back locks it
 * first, inside (docs/architecture.md, "Read-modify-write"); a transaction that deadlocked or
 * failed to serialize runs again, whole, with new events (`retryingConflicts`), so `action` must
 * do nothing outside the database that a second run would repeat.
 */
export async function inTransaction<T>(
  ctx: AppContext,
  action: (tx: Tx, events: EventSink) => Promise<T>,
): Promise<T> {
  let sink: EventSink | null = null;
  const result = await retryingConflicts(() =>
    ctx.db.$transaction(
      async (tx) => {
        sink = new EventSink((sql) => tx.$queryRaw(sql));
        const result = await action(tx, sink);
        await sink.flush();
        return result;
      },
      { timeout: 30000, maxWait: 10000 },
    ),
  );
  await publishCommitted(ctx, (sink as EventSink | null)?.rows ?? []);
  return result;
}

/**
 * An action whose writes all fit the events' statement (`EventSink.write`): its reads run on the
 * plain pool, which it is given, and its writes commit as that one statement, with no
 * transaction around it (a BEGIN, a COMMIT and Prisma's work for them saved), then its events
 * are published. Reads come before the write, as in `inTransaction`'s READ COMMITTED, where each
 * statement sees what was committed when it started.
 */
export async function inOneStatement<T>(
  ctx: AppContext,
  action: (run: SqlRunner, events: EventSink) => Promise<T>,
): Promise<T> {
  // What runs here (a channel message's reads and its write) has texts of a fixed shape.
  const run: SqlRunner = (sql) => sqlRows(sqlPool(ctx), sql, { prepared: true });
  const sink = new EventSink(run);
  const result = await action(run, sink);
  await sink.flush();
  await publishCommitted(ctx, sink.rows);
  return result;
}

async function publishCommitted(ctx: AppContext, rows: CommittedEvent[]): Promise<void> {
  try {
    await publishOutbox(ctx, rows);
  } catch (err) {
    ctx.log.warn('outbox', 'publish after commit failed; the sweeper will retry', {
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
