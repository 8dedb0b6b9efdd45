import { PgNotifications } from './notifications';

/**
 * A user's or an organization's row changed (or was deleted); or, `markup` and `channel`, one of
 * the custom emoji or linkifiers, or one of the channels, of organization `id` (migration
 * realm_markup_notify).
 */
export type PrincipalChange = { kind: 'user' | 'realm' | 'markup' | 'channel'; id: number };

const KINDS = new Set<string>(['user', 'realm', 'markup', 'channel']);

export interface PrincipalChangeHandlers {
  change(change: PrincipalChange): void;
  /** The feed stopped or (re)started: changes in between may have been missed. */
  reset(): void;
}

const CHANNEL = 'principal_changes';
const BARRIER_CHANNEL = 'principal_changes_barrier';
/**
 * A barrier not back by then means the connection does not hear its notifications (LISTEN through
 * a transaction-mode pooler): its waiters go on and the connection is made again, which resets
 * what the handlers keep.
 */
const BARRIER_TIMEOUT_MS = 5_000;

/**
 * Listens on PostgreSQL's `principal_changes` channel, which triggers on `users` and `realms`
 * notify when a transaction that changed a row commits (migration principal_change_notify).
 * One dedicated connection per process (`PgNotifications`), which reports `reset` on every
 * (re)connection and loss.
 */
export class PrincipalChangeFeed {
  private readonly connection: PgNotifications;
  /** Barrier tokens sent and not yet seen back, with who waits for each. */
  private readonly barriers = new Map<string, () => void>();
  private nextBarrier = 0;
  private inFlight = false;
  private queued: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(
    databaseUrl: string,
    private readonly handlers: PrincipalChangeHandlers,
    onError: (err: Error) => void,
  ) {
    this.connection = new PgNotifications(
      databaseUrl,
      [CHANNEL, BARRIER_CHANNEL],
      {
        notify: (channel, payload) => this.heard(channel, payload),
        reset: () => {
          this.releaseBarriers();
          this.handlers.reset();
        },
      },
      onError,
    );
  }

  /** True while notifications are being received. */
  get listening(): boolean {
    return this.connection.listening;
  }

  /** Connects; resolves once listening (or after the first failure, retrying in the background). */
  start(): Promise<void> {
    return this.connection.start();
  }

  private heard(channel: string, payload: string): void {
    if (channel === BARRIER_CHANNEL) {
      const release = this.barriers.get(payload);
      this.barriers.delete(payload);
      release?.();
      return;
    }
    const [kind = '', id] = payload.split(':');
    if (KINDS.has(kind)) {
      this.handlers.change({ kind: kind as PrincipalChange['kind'], id: Number(id) });
    }
  }

  /**
   * Resolves once every change committed before the call has been handled. PostgreSQL delivers
   * notifications in commit order, so a notification this connection sends after the call comes
   * back after them. Callers that arrive while one is on its way share the next one.
   */
  barrier(): Promise<void> {
    if (!this.connection.listening) return Promise.resolve();
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
    const waiting = this.queued;
    this.queued = null;
    if (!waiting) return;
    if (!this.connection.listening) return waiting.resolve();
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
    const deaf = setTimeout(() => {
      if (!this.barriers.has(token)) return;
      this.connection.reconnect(
        new Error(
          `a notification did not come back within ${BARRIER_TIMEOUT_MS} ms: LISTEN through a ` +
            'transaction-mode pooler hears nothing (set DATABASE_LISTEN_URL to PostgreSQL itself)',
        ),
      );
    }, BARRIER_TIMEOUT_MS);
    deaf.unref();
    this.barriers.set(token, () => {
      clearTimeout(deaf);
      heard = true;
      waiting.resolve();
      next();
    });
    void this.connection.send(BARRIER_CHANNEL, token).then((sent) => {
      if (!sent) {
        const release = this.barriers.get(token);
        this.barriers.delete(token);
        release?.();
      }
      answered = true;
      next();
    });
  }

  async close(): Promise<void> {
    this.releaseBarriers();
    await this.connection.close();
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
