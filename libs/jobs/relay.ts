import type { AppContext } from '../core/context';
import { pause } from '../core/pause';
import { inSqlTransaction, sqlPool } from '../db/sql';
import { PgNotifications } from '../db/notifications';
import { logFailure } from '../stores/failures';
import type { JobNameValue } from './job-catalogue';
import { handOverJobs, upsertJobSchedulers } from './enqueue';

export interface RelayOptions {
  /** Rows handed over per transaction. */
  batch?: number;
  /**
   * Pause when there was nothing (or less than a batch) to hand over: the least time between
   * passes, and the whole pause while PostgreSQL's word on new rows is not heard.
   */
  intervalMs?: number;
  /** The longest pause while that word is heard (a pass then follows each word). */
  idleMs?: number;
  /** How often Redis is checked for lost data. */
  reconcileEveryMs?: number;
  /** How often published rows past their retention are deleted. */
  pruneEveryMs?: number;
}

/**
 * Hands unpublished `job_outbox` rows to BullMQ under their stable job IDs and marks them
 * published, in one transaction per batch. Rows are locked with SKIP LOCKED, so every worker
 * process may relay at once; a row handed over twice (the marking failed) stays one BullMQ job.
 * A failure leaves the rows unpublished for the next try.
 */
export async function relayJobs(ctx: AppContext, batch = 500): Promise<number> {
  if (!(await anyUnpublished(ctx))) return 0;
  return inSqlTransaction(sqlPool(ctx), async (client) => {
    const { rows } = await client.query<{
      id: string;
      name: JobNameValue;
      data: unknown;
      jobId: string;
      runAt: Date;
    }>(
      `SELECT id, job_name AS name, payload AS data, job_id AS "jobId", run_at AS "runAt"
       FROM job_outbox WHERE published_at IS NULL
       ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [batch],
    );
    if (rows.length) {
      await handOverJobs(ctx, rows);
      await client.query(
        'UPDATE job_outbox SET published_at = now() WHERE id = ANY($1::bigint[])',
        [rows.map((r) => r.id)],
      );
    }
    return rows.length;
  });
}

/**
 * Whether a row waits to be handed over, by one statement on the unpublished rows' index: most
 * passes of every worker process's relay (ten a second each) find none, and would otherwise
 * cost a transaction of three statements each.
 */
async function anyUnpublished(ctx: AppContext): Promise<boolean> {
  const { rowCount } = await sqlPool(ctx).query({
    name: ctx.config.databasePreparedStatements ? 'job-outbox-unpublished' : undefined,
    text: 'SELECT 1 FROM job_outbox WHERE published_at IS NULL LIMIT 1',
  });
  return (rowCount ?? 0) > 0;
}

/** Redis key present while Redis keeps its data; the reconciler sets it. */
export const redisEpochKey = (redisPrefix: string) => `${redisPrefix}jobs:epoch`;

/**
 * PostgreSQL decides what is due. When Redis has lost its data (the epoch key is gone: a restart
 * without persistence, a failover to an empty replica, a flush), every job not done is marked
 * unpublished, so the relay hands it to BullMQ again, and the repeating jobs are scheduled
 * again. Jobs Redis still holds are left as they are (same job IDs). Returns the rows re-handed,
 * or null when Redis still had its data.
 */
export async function reconcileJobs(ctx: AppContext): Promise<number | null> {
  const fresh = await ctx.redis.set(redisEpochKey(ctx.config.redisPrefix), Date.now(), 'NX');
  if (fresh !== 'OK') return null;
  const { rowCount } = await sqlPool(ctx).query(
    `UPDATE job_outbox SET published_at = NULL
     WHERE done_at IS NULL AND published_at IS NOT NULL`,
  );
  await upsertJobSchedulers(ctx);
  if (rowCount) {
    ctx.log.warn('worker', 'Redis lost its data; handing pending jobs to BullMQ again', {
      jobs: rowCount,
    });
  }
  return rowCount ?? 0;
}

/** The worker marks a job of `job_outbox` done once it succeeded or failed for good. */
export async function markJobDone(ctx: AppContext, jobId: string): Promise<void> {
  await ctx.db.$executeRaw`
    UPDATE job_outbox SET done_at = now() WHERE job_id = ${jobId} AND done_at IS NULL`;
}

const PRUNE_BATCH = 5000;
/** Batches per table per pruning round, so a large backlog is spread over several rounds. */
const PRUNE_ROUNDS = 20;

/**
 * Deletes published outbox events, done jobs and their effect keys once they are older than the
 * retention (OUTBOX_RETENTION_SECONDS), in batches of 5,000 rows so no statement holds locks for
 * long; rows another worker is deleting are skipped. A table that lost rows is vacuumed at once:
 * every row is written, updated once and deleted within the retention, so the tables are all
 * churn, and their space is reused only once vacuumed; left to autovacuum (off on some servers,
 * and on the default thresholds late for tables this small) a 10-minute run at 20 messages/s
 * grew `outbox_events` from 4 to 37.6 MB while its rows stayed near 3,600. `SKIP_LOCKED`: a table
 * another worker is vacuuming is left to it. Returns the rows deleted per table.
 */
export async function pruneOutboxes(
  ctx: AppContext,
): Promise<{ events: number; jobs: number; effects: number }> {
  const retention = ctx.config.outboxRetentionSeconds;
  const prune = async (table: string, key: string, column: string) => {
    let total = 0;
    for (let round = 0; round < PRUNE_ROUNDS; round++) {
      const { rowCount } = await sqlPool(ctx).query(
        `DELETE FROM ${table} WHERE ${key} IN (
           SELECT ${key} FROM ${table}
           WHERE ${column} < now() - make_interval(secs => $1::double precision)
           LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`,
        [retention],
      );
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < PRUNE_BATCH) break;
    }
    if (total > 0) await sqlPool(ctx).query(`VACUUM (SKIP_LOCKED) ${table}`);
    return total;
  };
  return {
    events: await prune('outbox_events', 'id', 'published_at'),
    jobs: await prune('job_outbox', 'id', 'done_at'),
    effects: await prune('job_effects', 'key', 'created_at'),
  };
}

export interface JobRelay {
  /** Resolves once a pass of the loop has run (tests wait on it). */
  stop(): Promise<void>;
  /** Whether PostgreSQL's word of written rows is heard (else the relay asks every interval). */
  readonly listening: boolean;
}

const JOBS_WRITTEN_CHANNEL = 'job_outbox_written';

/**
 * PostgreSQL's word that job rows were written (migration job_outbox_notify), heard on a
 * connection of the relay's own. Until the relay starts a pass, a word heard stays heard; so
 * does the (re)start of listening, since words sent while away are lost.
 */
class JobsWritten {
  private heard = true;
  private wake: (() => void) | null = null;
  private readonly connection: PgNotifications;

  constructor(ctx: AppContext) {
    const hear = () => {
      this.heard = true;
      this.wake?.();
    };
    this.connection = new PgNotifications(
      ctx.config.databaseListenUrl,
      [JOBS_WRITTEN_CHANNEL],
      { notify: hear, reset: hear },
      (err) => logFailure(ctx.log, 'worker', 'job relay stopped hearing of new jobs', err, 'warn'),
    );
    void this.connection.start();
  }

  get listening(): boolean {
    return this.connection.listening;
  }

  /** A pass starts: what it reads covers every word heard so far. */
  passStarts(): void {
    this.heard = false;
  }

  /** Resolves when a word is heard (at once if one was since the pass), or after `ms`. */
  async wait(ms: number): Promise<void> {
    if (this.heard) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  close(): Promise<void> {
    this.wake?.();
    return this.connection.close();
  }
}

/**
 * The worker tier's relay loop: hands jobs over when PostgreSQL says rows were written (at most
 * one pass per `intervalMs`; at once again after a full batch), and every `idleMs` besides; every
 * `intervalMs` while that word is not heard. Checks Redis for lost data every `reconcileEveryMs`,
 * prunes every `pruneEveryMs`. While Redis or PostgreSQL fails it backs off up to 5 s and logs
 * once per outage. Asking every 100 ms cost each worker process ten statements a second, idle
 * or not.
 */
export function startJobRelay(ctx: AppContext, options: RelayOptions = {}): JobRelay {
  const batch = options.batch ?? 500;
  const intervalMs = options.intervalMs ?? 100;
  const idleMs = options.idleMs ?? 2000;
  const written = new JobsWritten(ctx);
  const reconcileEveryMs = options.reconcileEveryMs ?? 5000;
  const pruneEveryMs = options.pruneEveryMs ?? 60_000;
  let running = true;
  let failures = 0;
  let reconciledAt = 0;
  let prunedAt = Date.now();
  const loop = (async () => {
    while (running) {
      let handed: number;
      written.passStarts();
      try {
        const now = Date.now();
        if (now - reconciledAt >= reconcileEveryMs) {
          await reconcileJobs(ctx);
          reconciledAt = now;
        }
        handed = await relayJobs(ctx, batch);
        if (now - prunedAt >= pruneEveryMs) {
          prunedAt = now;
          const pruned = await pruneOutboxes(ctx);
          if (pruned.events + pruned.jobs + pruned.effects > 0) {
            ctx.log.debug('worker', 'pruned outboxes', { ...pruned });
          }
        }
        if (failures > 0) ctx.log.info('worker', 'job relay recovered', { failures });
        failures = 0;
      } catch (err) {
        if (failures === 0) {
          logFailure(
            ctx.log,
            'worker',
            'job relay failing; retrying until it succeeds',
            err,
            'warn',
          );
        }
        failures++;
        await pause(Math.min(5000, 100 * 2 ** Math.min(failures, 6)));
        continue;
      }
      if (handed < batch) {
        await pause(intervalMs);
        if (running && written.listening) await written.wait(idleMs);
      }
    }
  })();
  return {
    get listening() {
      return written.listening;
    },
    async stop() {
      running = false;
      await written.close();
      // A pass stuck on a store that is down, or a back-off, must not hold up the exit; rows it
      // did not mark are handed over again by the next relay (stable job ids).
      await Promise.race([loop, pause(2000)]);
    },
  };
}
