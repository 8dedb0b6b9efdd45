import { Client } from 'pg';

export interface NotificationHandlers {
  notify(channel: string, payload: string): void;
  /** Listening stopped or (re)started: notifications in between may have been missed. */
  reset(): void;
}

const RETRY_MS = 1_000;

/**
 * One connection LISTENing on PostgreSQL channels. It reconnects after a failure and reports
 * `reset` on every (re)connection and loss, since notifications sent while it was away are lost.
 */
export class PgNotifications {
  private client: Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  /** Gives up the current connection, reporting why, and connects again. */
  private dropCurrent: ((err: Error) => void) | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly channels: string[],
    private readonly handlers: NotificationHandlers,
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
      if (this.client === client) {
        this.client = null;
        this.dropCurrent = null;
      }
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
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
    client.on('notification', ({ channel, payload }) =>
      this.handlers.notify(channel, payload ?? ''),
    );
    try {
      await client.connect();
      await client.query(this.channels.map((channel) => `LISTEN ${channel}`).join('; '));
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      this.dropCurrent = lost;
      this.handlers.reset();
    } catch (err) {
      lost(err as Error);
    }
  }

  /** Sends a notification on this connection; false when not listening or it failed. */
  async send(channel: string, payload: string): Promise<boolean> {
    const client = this.client;
    if (!client) return false;
    // The channel is one of ours, written in: the statement names it (pg_stat_activity shows it).
    return client.query(`SELECT pg_notify('${channel}', $1)`, [payload]).then(
      () => true,
      () => false,
    );
  }

  /** The connection hears nothing it should: reported as `err`, then dropped and made again. */
  reconnect(err: Error): void {
    this.dropCurrent?.(err);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
