import { ApiError, call } from './api';
import { store } from './store';
import type { ServerEvent } from './types';

/**
 * Follows the server as Zulip's clients do: `POST /register` for the state and a queue, then
 * `GET /events` long-polls for ever. A lost queue (`BAD_EVENT_QUEUE_ID`, e.g. after the queue
 * expired) means registering again and reconciling the view in sight (no page reload); a lost network means retrying the same queue
 * with backoff, which misses nothing while the queue lives. Either way the page says
 * "reconnecting…" until a poll succeeds again.
 */
export class EventLoop {
  private queueId = '';
  private lastEventId = -1;
  private stopped = false;
  private polling = false;
  private controller: AbortController | null = null;
  private kicked = false;

  constructor(private readonly onReload: () => Promise<void>) {}

  async register(): Promise<void> {
    const state = await call<Record<string, unknown>>('POST', '/register', {
      apply_markdown: true,
      client_gravatar: false,
      slim_presence: true,
      include_subscribers: false,
      // Only the state this client shows (the snapshot is read part by part, one after another);
      // events of every type still come.
      fetch_event_types: [
        'realm',
        'realm_user',
        'realm_emoji',
        'subscription',
        'stream',
        'message',
        'update_message_flags',
        'presence',
        'recent_private_conversations',
        'user_settings',
        'user_topic',
        'muted_users',
        'user_status',
        'drafts',
        'starred_messages',
      ],
      // What Zulip's web app declares: typing in channels and while editing, users' settings
      // as one object, whole-message deletions, topics renamed to and from empty.
      client_capabilities: {
        notification_settings_null: true,
        bulk_message_deletion: true,
        user_avatar_url_field_optional: false,
        stream_typing_notifications: true,
        user_settings_object: true,
        linkifier_url_template: true,
        user_list_incomplete: false,
        include_deactivated_groups: true,
        archived_channels: true,
        empty_topic_name: true,
      },
    });
    this.queueId = state.queue_id as string;
    this.lastEventId = state.last_event_id as number;
    store.load(state);
  }

  start(): void {
    // A page the browser keeps in its back/forward cache after the reader leaves would keep its
    // long poll, and the poll's connection, open until the heartbeat (45 s): a browser opens
    // six connections to a host, so six such pages stall the next page load on this site for
    // the rest of the 45 s. The poll ends when the page is put away, and starts again (on the
    // same queue, or a new one if it expired) if the page comes back.
    addEventListener('pagehide', () => this.stop());
    addEventListener('pageshow', (event) => {
      if (event.persisted) this.resume();
    });
    // Back online: the poll in flight may be on a dead connection, or on a queue that expired
    // meanwhile; a new poll finds out now rather than at the next heartbeat.
    addEventListener('online', () => {
      this.kicked = true;
      this.controller?.abort();
    });
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
  }

  private resume(): void {
    this.stopped = false;
    if (!this.polling) void this.loop();
  }

  private setConnection(connection: 'connected' | 'reconnecting'): void {
    if (store.connection === connection) return;
    store.connection = connection;
    store.changed();
  }

  private async loop(): Promise<void> {
    this.polling = true;
    try {
      await this.poll();
    } finally {
      this.polling = false;
    }
  }

  private async poll(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        this.controller = new AbortController();
        const { events } = await call<{ events: ServerEvent[] }>(
          'GET',
          '/events',
          { queue_id: this.queueId, last_event_id: this.lastEventId },
          { signal: this.controller.signal },
        );
        failures = 0;
        this.setConnection('connected');
        for (const event of events) {
          this.lastEventId = Math.max(this.lastEventId, event.id);
          store.apply(event);
        }
        if (events.some((e) => e.type !== 'heartbeat')) store.changed();
      } catch (err) {
        if (this.stopped) return;
        const kicked = this.kicked;
        this.kicked = false;
        if (kicked && err instanceof DOMException && err.name === 'AbortError') continue;
        this.setConnection('reconnecting');
        if (err instanceof ApiError && err.code === 'BAD_EVENT_QUEUE_ID') {
          await this.reregister();
          continue;
        }
        if (err instanceof ApiError && err.status === 401) {
          location.reload();
          return;
        }
        failures++;
        await sleep(Math.min(500 * 2 ** Math.min(failures - 1, 4), 8000) * (0.5 + Math.random()));
      }
    }
  }

  /** A new queue and everything loaded again, retried until the server answers. */
  private async reregister(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        await this.register();
        await this.onReload();
        this.setConnection('connected');
        return;
      } catch {
        await sleep(Math.min(500 * 2 ** Math.min(attempt, 4), 8000));
      }
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
