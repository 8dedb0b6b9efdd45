/**
 * The load and the judge of the chaos scenarios on the local cluster (deploy/local/chaos.ts):
 * sustained channel sends through nginx, long-polling clients (two queues per user), and the
 * check of what every client saw against what PostgreSQL committed.
 *
 * A client behaves as Zulip's do: after a failed poll it polls again from the last event id it
 * saw; when its queue is gone (BAD_EVENT_QUEUE_ID) it registers a new one and then fetches again,
 * with GET /messages, the messages it shows (here the scenario's topic), as Zulip's apps reload
 * their message lists. Not only those after the last id it had: messages are published in commit
 * order, not id order, so a lower id may still have been on its way when the queue was lost.
 * "Nothing lost" is judged on what the client holds once the sends stopped and it had up to
 * DRAIN_MS to catch up: every committed message must be among the messages its queues brought
 * or that fetch returned. "Nothing twice" is judged on its queues
 * alone: no message may arrive twice as an event (a message both fetched and brought by the new
 * queue is one message to a client, which keys messages by id). Event ids must follow each other
 * in the first queue; a queue registered during the sends skips the ids of events its
 * registration snapshot already holds (the register guarantee), so its gaps are not counted.
 */
import type { Pool } from 'pg';
import type { Cluster } from './cluster';

/** Send loops, each sequential (so each one's messages have an order to keep), over the users. */
const SENDERS = 12;
const TARGET_RATE = 60; // messages per second, over all senders
/** How long after the sends stopped a client may still be waiting for messages. */
const DRAIN_MS = 30_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface User {
  id: number;
  auth: string;
}

interface ClientState {
  user: User;
  queueId: string;
  lastEventId: number;
  /** Message ids as events brought them, over every queue the client registered. */
  messageIds: number[];
  /** Message ids fetched with GET /messages after a re-registration. */
  fetchedIds: Set<number>;
  /** Every message id the client has, from events or that fetch. */
  held: Set<number>;
  eventIdGaps: number;
  /** Failures as the client saw them (nginx retries some itself), by kind. */
  pollErrors: Map<string, number>;
  /** When the last message event arrived. */
  lastMessageAt: number;
  /** Times the queue was gone (BAD_EVENT_QUEUE_ID) and a new one was registered. */
  reregistered: number;
}

interface SendFailure {
  /** Status and Zulip error code, or the network error; `not Zulip's envelope` when it lacks one. */
  kind: string;
  at: number;
  ms: number;
}

interface Load {
  sent: { id: number; sender: number; seq: number }[];
  sendFailures: SendFailure[];
  clients: ClientState[];
  stop(): Promise<void>;
}

export interface ScenarioResult {
  scenario: string;
  seconds: number;
  sent: number;
  msgPerSecond: number;
  sendFailures: Record<string, number>;
  /** The longest a failed send waited for its answer. */
  slowestFailureMs: number;
  /** From the end of the fault to the last failed send (0: none after it). */
  failingAfterFaultMs: number;
  queues: number;
  committed: number;
  deliveriesExpected: number;
  delivered: number;
  /** Of `delivered`, messages a re-registered client had only from GET /messages. */
  deliveredByFetch: number;
  missing: number;
  duplicates: number;
  outOfOrder: number;
  eventIdGaps: number;
  clientPollErrors: Record<string, number>;
  badEventQueueId: number;
  catchUpMs: number;
  notes: string[];
}

interface Event {
  id: number;
  type: string;
  message?: { id: number };
}

/** What a JSON answer says went wrong: Zulip's code, or that it is not Zulip's error envelope. */
async function failureKind(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { result?: string; code?: string; msg?: string };
    if (body.result === 'error' && body.code && body.msg) return `${res.status} ${body.code}`;
  } catch {
    // not JSON
  }
  return `${res.status} not Zulip's envelope: ${text.slice(0, 60)}`;
}

const errorText = (err: unknown) =>
  err instanceof Error ? `${err.message} ${String(err.cause ?? '')}`.trim() : String(err);

function countError(c: ClientState, kind: string): void {
  c.pollErrors.set(kind, (c.pollErrors.get(kind) ?? 0) + 1);
}

export class Chaos {
  constructor(
    readonly cluster: Cluster,
    readonly users: User[],
    readonly channelId: number,
    readonly db: Pool,
  ) {}

  async api(pathAndQuery: string, user: User, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.cluster.url}/api/v1${pathAndQuery}`, {
      ...init,
      headers: { Authorization: user.auth, ...(init.headers as Record<string, string>) },
    });
  }

  form(fields: Record<string, string>): RequestInit {
    return {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    };
  }

  /**
   * Schedules `count` messages to the channel's topic `topic` (contents `<topic> n0`, ...), eight
   * at a time from the users in turn, each due at `dueAt()` (Unix seconds, asked as it is sent).
   * Returns the refusals, one line each.
   */
  async scheduleMessages(topic: string, count: number, dueAt: () => number): Promise<string[]> {
    let next = 0;
    const failures: string[] = [];
    await Promise.all(
      [...Array(8).keys()].map(async (loop) => {
        for (let n = next++; n < count; n = next++) {
          const res = await this.api(
            '/scheduled_messages',
            this.users[loop % this.users.length],
            this.form({
              type: 'stream',
              to: String(this.channelId),
              topic,
              content: `${topic} n${n}`,
              scheduled_delivery_timestamp: String(dueAt()),
            }),
          );
          if (res.status !== 200) failures.push(`${res.status} ${(await res.text()).slice(0, 80)}`);
        }
      }),
    );
    return failures;
  }

  private async registerQueue(user: User): Promise<{ queue_id: string; last_event_id: number }> {
    const res = await this.api('/register', user, this.form({ event_types: '["message"]' }));
    if (res.status !== 200) throw new Error(`register: ${await failureKind(res)}`);
    return (await res.json()) as { queue_id: string; last_event_id: number };
  }

  private async newClient(user: User): Promise<ClientState> {
    const queue = await this.registerQueue(user);
    return {
      user,
      queueId: queue.queue_id,
      lastEventId: queue.last_event_id,
      messageIds: [],
      fetchedIds: new Set(),
      held: new Set(),
      eventIdGaps: 0,
      pollErrors: new Map(),
      lastMessageAt: 0,
      reregistered: 0,
    };
  }

  /** A new queue for a client whose queue is gone, then the messages it may have missed. */
  private async reregister(c: ClientState, topic: string): Promise<void> {
    c.reregistered++;
    for (;;) {
      try {
        const queue = await this.registerQueue(c.user);
        c.queueId = queue.queue_id;
        c.lastEventId = queue.last_event_id;
        break;
      } catch (err) {
        countError(c, errorText(err));
        await sleep(500);
      }
    }
    // After registering, so a message is either committed before this fetch or in the new queue.
    let anchor = 0;
    for (;;) {
      const narrow = [
        { operator: 'channel', operand: this.channelId },
        { operator: 'topic', operand: topic },
      ];
      const query = new URLSearchParams({
        anchor: anchor ? String(anchor) : 'oldest',
        include_anchor: 'false',
        num_before: '0',
        num_after: '1000',
        narrow: JSON.stringify(narrow),
      });
      const res = await this.api(`/messages?${query}`, c.user).catch(() => null);
      if (res?.status !== 200) {
        countError(c, res ? `fetch: ${await failureKind(res)}` : 'fetch: network error');
        await sleep(500);
        continue;
      }
      const body = (await res.json()) as { messages: { id: number }[]; found_newest: boolean };
      for (const m of body.messages) {
        c.fetchedIds.add(m.id);
        c.held.add(m.id);
      }
      if (body.found_newest || body.messages.length === 0) return;
      anchor = body.messages[body.messages.length - 1].id;
    }
  }

  /**
   * Long-polls, re-polling after any failure, until `finished`; once `draining`, without
   * blocking, so that the end is noticed at once.
   */
  private async pollLoop(
    c: ClientState,
    topic: string,
    draining: () => boolean,
    finished: () => boolean,
  ): Promise<void> {
    for (;;) {
      if (finished()) return;
      const drain = draining();
      let res: Response;
      try {
        res = await this.api(
          `/events?queue_id=${c.queueId}&last_event_id=${c.lastEventId}${drain ? '&dont_block=true' : ''}`,
          c.user,
        );
      } catch (err) {
        countError(c, errorText(err));
        await sleep(200);
        continue;
      }
      if (res.status === 200) {
        const { events } = (await res.json()) as { events: Event[] };
        this.take(c, events);
        if (drain && events.length === 0) await sleep(100);
        continue;
      }
      const kind = await failureKind(res);
      if (kind.endsWith(' BAD_EVENT_QUEUE_ID')) await this.reregister(c, topic);
      else {
        countError(c, kind);
        await sleep(200);
      }
    }
  }

  private take(c: ClientState, events: Event[]): void {
    for (const e of events) {
      if (e.id <= c.lastEventId) continue; // re-sent after a lost answer: already counted
      if (e.id !== c.lastEventId + 1 && c.reregistered === 0) c.eventIdGaps++;
      c.lastEventId = e.id;
      if (e.type === 'message' && e.message) {
        c.messageIds.push(e.message.id);
        c.held.add(e.message.id);
        c.lastMessageAt = Date.now();
      }
    }
  }

  /** Senders at TARGET_RATE in total and every client's poller, until `stop()`. */
  private async startLoad(topic: string): Promise<Load> {
    const clients = await Promise.all(
      this.users.flatMap((u) => [this.newClient(u), this.newClient(u)]),
    );
    let sending = true;
    /** Once the sends stopped: what PostgreSQL committed, which every client must come to hold. */
    let expected: number[] | null = null;
    let drainDeadline = 0;
    const sent: Load['sent'] = [];
    const sendFailures: SendFailure[] = [];
    const interval = (1000 * SENDERS) / TARGET_RATE;
    const senders = [...Array(SENDERS).keys()].map(async (sender) => {
      const user = this.users[sender % this.users.length];
      for (let seq = 0; sending; seq++) {
        const started = Date.now();
        let failure: string | null = null;
        try {
          const res = await this.api(
            '/messages',
            user,
            this.form({
              type: 'stream',
              to: String(this.channelId),
              topic,
              content: `${topic} s${sender} n${seq}`,
            }),
          );
          if (res.status === 200) {
            sent.push({ id: ((await res.json()) as { id: number }).id, sender, seq });
          } else failure = await failureKind(res);
        } catch (err) {
          failure = errorText(err);
        }
        if (failure) sendFailures.push({ kind: failure, at: started, ms: Date.now() - started });
        await sleep(Math.max(0, interval - (Date.now() - started)));
      }
    });
    // Dispatch trails the sends' answers by milliseconds (more on a loaded machine): a client
    // whose queue is empty once the sends stopped may still get the last messages, so each
    // polls until it holds every committed message, or DRAIN_MS passed (then some are missing).
    const pollers = clients.map((c) =>
      this.pollLoop(
        c,
        topic,
        () => expected !== null,
        () =>
          expected !== null &&
          (Date.now() > drainDeadline || expected.every((id) => c.held.has(id))),
      ),
    );
    const committedIds = () => this.committedIds(topic);
    return {
      sent,
      sendFailures,
      clients,
      async stop() {
        sending = false;
        await Promise.all(senders);
        expected = await committedIds();
        drainDeadline = Date.now() + DRAIN_MS;
        await Promise.all(pollers);
      },
    };
  }

  /** The channel messages PostgreSQL committed under `topic`. */
  private async committedIds(topic: string): Promise<number[]> {
    const { rows } = await this.db.query<{ id: number }>(
      `SELECT m.id FROM messages m JOIN recipients r ON r.id = m.recipient_id
       WHERE r.type = 2 AND r.type_id = $1 AND m.subject = $2 ORDER BY m.id`,
      [this.channelId, topic],
    );
    return rows.map((r) => r.id);
  }

  /** Compares every client with what PostgreSQL committed under `topic`. */
  private async judge(
    run: { scenario: string; topic: string; seconds: number; faultEndedAt: number },
    load: Load,
    catchUpMs: number,
    notes: string[],
  ): Promise<ScenarioResult> {
    const committed = new Set(await this.committedIds(run.topic));
    const senderOf = new Map(load.sent.map((s) => [s.id, s]));
    let delivered = 0;
    let deliveredByFetch = 0;
    let missing = 0;
    let duplicates = 0;
    let outOfOrder = 0;
    /** Per missing message, the users whose clients lack it: where to look in the logs. */
    const lacking = new Map<number, number[]>();
    for (const c of load.clients) {
      const seen = new Set<number>();
      const lastSeq = new Map<number, number>();
      for (const id of c.messageIds) {
        if (!committed.has(id)) continue;
        if (seen.has(id)) duplicates++;
        seen.add(id);
        const s = senderOf.get(id);
        if (s) {
          if ((lastSeq.get(s.sender) ?? -1) > s.seq) outOfOrder++;
          lastSeq.set(s.sender, s.seq);
        }
      }
      const held = new Set([...seen, ...[...c.fetchedIds].filter((id) => committed.has(id))]);
      delivered += held.size;
      deliveredByFetch += held.size - seen.size;
      for (const id of committed) {
        if (held.has(id)) continue;
        missing++;
        lacking.set(id, [...(lacking.get(id) ?? []), c.user.id]);
      }
    }
    for (const [id, users] of [...lacking].slice(0, 3)) {
      // Where its event went: when it was committed and published.
      const { rows: outbox } = await this.db.query<{ created: Date; published: Date | null }>(
        `SELECT created_at AS created, published_at AS published FROM outbox_events
         WHERE event_json->>'type' = 'message' AND (event_json->'message'->>'id')::int = $1`,
        [id],
      );
      const when = outbox
        .map((o) => `committed ${o.created.toISOString()}, published ${o.published?.toISOString()}`)
        .join('; ');
      notes.push(`message ${id} (${when}) missing for users ${users.join(', ')}`);
    }
    const kinds = new Map<string, number>();
    for (const f of load.sendFailures) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
    const lastFailureAt = Math.max(0, ...load.sendFailures.map((f) => f.at + f.ms));
    return {
      scenario: run.scenario,
      seconds: Math.round(run.seconds * 10) / 10,
      sent: load.sent.length,
      msgPerSecond: Math.round((load.sent.length / run.seconds) * 10) / 10,
      sendFailures: Object.fromEntries(kinds),
      slowestFailureMs: Math.max(0, ...load.sendFailures.map((f) => f.ms)),
      failingAfterFaultMs: Math.max(0, lastFailureAt - run.faultEndedAt),
      queues: load.clients.length,
      committed: committed.size,
      deliveriesExpected: committed.size * load.clients.length,
      delivered,
      deliveredByFetch,
      missing,
      duplicates,
      outOfOrder,
      eventIdGaps: load.clients.reduce((n, c) => n + c.eventIdGaps, 0),
      clientPollErrors: Object.fromEntries(
        [...new Set(load.clients.flatMap((c) => [...c.pollErrors.keys()]))].map((kind) => [
          kind,
          load.clients.reduce((n, c) => n + (c.pollErrors.get(kind) ?? 0), 0),
        ]),
      ),
      badEventQueueId: load.clients.reduce((n, c) => n + c.reregistered, 0),
      catchUpMs,
      notes: notes.slice(0, 8),
    };
  }

  /** Runs `fault` during `seconds` of load, then lets every queue drain. */
  async run(
    scenario: string,
    seconds: number,
    fault: (notes: string[]) => Promise<void>,
  ): Promise<ScenarioResult> {
    const topic = `${scenario}-${Date.now()}`;
    const notes: string[] = [];
    const load = await this.startLoad(topic);
    const started = Date.now();
    let faultEndedAt = 0;
    const faultDone = fault(notes).then(() => {
      faultEndedAt = Date.now();
    });
    await sleep(seconds * 1000);
    await faultDone;
    const loadSeconds = (Date.now() - started) / 1000;
    const stopping = Date.now();
    await Promise.race([
      load.stop(),
      sleep(60_000).then(() => notes.push('queues not drained within 60 s')),
    ]);
    // From the last send to the last message reaching a queue.
    const catchUpMs = Math.max(0, ...load.clients.map((c) => c.lastMessageAt - stopping));
    // A process that died on its own is a finding; restart it so the next scenario starts whole.
    for (const p of this.cluster.processes) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) {
        notes.push(`${p.name} died on its own (${await p.exited}); see ${p.logFile}`);
        await this.cluster.restart(p.name);
      }
    }
    return this.judge(
      { scenario, topic, seconds: loadSeconds, faultEndedAt },
      load,
      catchUpMs,
      notes,
    );
  }
}
