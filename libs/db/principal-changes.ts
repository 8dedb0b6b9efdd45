import { Client } from 'pg';

/**
 * A user's or an organization's row changed (or was deleted); or, `markup`, one of the custom
 * emoji or linkifiers of organization `id` (migration realm_markup_notify).
 */
export type PrincipalChange = { kind: 'user' | 'realm' | 'markup'; id: number };

export interface PrincipalChangeHandlers {
  change(change: PrincipalChange): void;
  /** The feed stopped or (re)started: changes in between may have been missed. */
  reset(): void;
}

const CHANNEL = 'principal_changes';
const BARRIER_CHANNEL = 'principal_changes_barrier';
const RETRY_MS = 1_000;

/**
 * Listens on PostgreSQL's `principal_changes` channel, which triggers on `users` and `realms`
 * notify when a transaction that changed a row commits (migration principal_change_notify).
 * One dedicated connection per process; it reconnects after a failure and reports `reset` on
 * every (re)connection, since notifications sent while it was away are lost.
 */
export class PrincipalChangeFeed {
  private client: Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  /** Barrier tokens sent and not yet seen back, with who waits for each. */
  private readonly barriers = new Map<string, () => void>();
  private nextBarrier = 0;
  private inFlight = false;
  private queued: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly handlers: PrincipalChangeHandlers,
    private readonly onError: (err: Error) => void,
  ) {}

  /** True while notifications are being received. */
  get listening(): boolean {
    return this.client !== null;
  }

  /** Connects; resolves once listening (or after the first failure, retrying in the background). */
  async start(): Promise<void> {
    // Keep-alive notices a silently dead connection (a listener only reads); a bounded connect
    // attempt keeps an unreachable server from stalling the retries.
    const client = new Client({
      connectionString: this.databaseUrl,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    const lost = (err?: Error) => {
      if (err) this.onError(err);
      if (this.client === client) this.client = null;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.releaseBarriers();
      this.handlers.reset();
      if (!this.closed && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = null;
          void this.start();
        }, RETRY_MS);
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === BARRIER_CHANNEL) {
        const token = message.payload ?? '';
        const release = this.barriers.get(token);
        this.barriers.delete(token);
        release?.();
        return;
      }
      const [kind, id] = (message.payload ?? '').split(':');
      if (kind === 'user' || kind === 'realm' || kind === 'markup') {
        this.handlers.change({ kind, id: Number(id) });
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}; LISTEN ${BARRIER_CHANNEL}`);
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      this.handlers.reset();
    } catch (err) {
      lost(err as Error);
    }
  }

  /**
   * Resolves once every change committed before the call has been handled. PostgreSQL delivers
   * notifications in commit order, so a notification this connection sends after the call comes
   * back after them. Callers that arrive while one is on its way share the next one.
   */
  barrier(): Promise<void> {
    if (!this.client) return Promise.resolve();
    if (!this.queued) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.queued = { promise, resolve };
    }
    const { promise } = this.queued;
    if (!this.inFlight) this.sendQueued();
    return promise;
  }

  private sendQueued(): void {
    const client = this.client;
    const waiting = this.queued;
    this.queued = null;
    if (!waiting) return;
    if (!client) return waiting.resolve();
    const token = `${process.pid}:${this.nextBarrier++}`;
    this.inFlight = true;
    // The notification can come back before the query's own answer; the next barrier waits for
    // both, so the connection never holds two queries at once.
    let heard = false;
    let answered = false;
    const next = () => {
      if (!heard || !answered) return;
      this.inFlight = false;
      this.sendQueued();
    };
    this.barriers.set(token, () => {
      heard = true;
      waiting.resolve();
      next();
    });
    const done = () => {
      answered = true;
      next();
    };
    client.query(`SELECT pg_notify('${BARRIER_CHANNEL}', $1)`, [token]).then(done, () => {
      const release = this.barriers.get(token);
      this.barriers.delete(token);
      release?.();
      done();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.releaseBarriers();
    if (client) await client.end().catch(() => undefined);
  }

  private releaseBarriers(): void {
    const releases = [...this.barriers.values()];
    this.barriers.clear();
    this.inFlight = false;
    for (const release of releases) release();
    this.queued?.resolve();
    this.queued = null;
  }
}
