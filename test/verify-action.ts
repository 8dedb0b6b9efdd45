import request from 'supertest';
import { eventsForQueue, type DomainEvent } from '../libs/protocol/event-catalogue';
import { DEFAULT_CAPABILITIES, type ClientCapabilities } from '../libs/protocol/queue';
import {
  applyEvents,
  type ReducibleEvent,
  type ReducerOptions,
  type RegisterState,
} from '../libs/protocol/state-reducer';
import { variantOf } from '../libs/protocol/variants';
import type { TestUser } from './factories';
import type { Organization } from './organization';
import { eventsAfter, outboxMark, type RecordedEvent } from './outbox';

/**
 * Zulip's verify_action (zerver/tests/test_events.py) for this server: each watcher registers
 * (every event type), the action runs, the events its queue receives are applied with the one
 * reducer (libs/protocol/state-reducer.ts), and the result must equal a fresh `POST /register`
 * of the same user with the same parameters. The fresh registration's queue is the next
 * action's starting point, so a sequence of actions costs one registration per step and watcher.
 */

/** A client as it registers: a current one, and a legacy one that declares no capability. */
export interface ClientKind {
  name: 'current' | 'legacy';
  form: Record<string, string>;
  options: Pick<
    ReducerOptions,
    'slimPresence' | 'includeSubscribers' | 'clientGravatar' | 'userListIncomplete'
  >;
  capabilities: ClientCapabilities;
  applyMarkdown: boolean;
  clientGravatar: boolean;
}

const ALL_CAPABILITIES = Object.fromEntries(
  Object.keys(DEFAULT_CAPABILITIES).map((name) => [name, true]),
) as Record<keyof ClientCapabilities, boolean>;

export const CURRENT: ClientKind = {
  name: 'current',
  form: {
    client_capabilities: JSON.stringify(ALL_CAPABILITIES),
    apply_markdown: 'true',
    client_gravatar: 'false',
    slim_presence: 'true',
    include_subscribers: 'true',
  },
  options: {
    slimPresence: true,
    includeSubscribers: true,
    clientGravatar: false,
    userListIncomplete: true,
  },
  capabilities: ALL_CAPABILITIES,
  applyMarkdown: true,
  clientGravatar: false,
};

export const LEGACY: ClientKind = {
  name: 'legacy',
  form: { apply_markdown: 'false', client_gravatar: 'true' },
  options: {
    slimPresence: false,
    includeSubscribers: false,
    clientGravatar: true,
    userListIncomplete: false,
  },
  capabilities: { ...DEFAULT_CAPABILITIES },
  applyMarkdown: false,
  clientGravatar: true,
};

export const CLIENT_KINDS: readonly ClientKind[] = [CURRENT, LEGACY];

/**
 * Members of the state that legitimately differ between two registrations, so never compared:
 * - `queue_id`, `last_event_id`: each registration makes its own queue;
 * - `server_timestamp`: when the presence part was read;
 * - `presence_last_update_id`: events do not carry it; Zulip's apply_event leaves it too ("This
 *   is intended and not a bug", zerver/lib/events.py);
 * - `result`, `msg`: the answer's envelope, not state.
 */
export const EXCLUDED_MEMBERS = [
  'queue_id',
  'last_event_id',
  'server_timestamp',
  'presence_last_update_id',
  'result',
  'msg',
];

/** What a pure reducer cannot know after some events, left out of both states' comparison. */
interface Unknowable {
  members: string[];
  /** Channels whose entry in `unsubscribed` or `never_subscribed` is not compared. */
  channels: number[];
}

/**
 * What a pure reducer cannot know after some events, which Zulip's apply_event re-reads from
 * the database:
 * - after a deletion, `max_message_id` (the user's newest remaining message) and, for a direct
 *   message, `recent_private_conversations` (the conversation's newest remaining one);
 * - after a presence event, a slim_presence client's `presences` (the event carries the legacy
 *   form, one timestamp, which does not determine the modern pair; Zulip re-reads it);
 * - after a channel comes back into sight (`stream` `create`, e.g. made public again) of a user
 *   once subscribed to it: register lists it in `unsubscribed` with that old subscription's
 *   settings, the event only as a channel (`never_subscribed`); Zulip's apply_event looks the old
 *   subscription up. The channel is still compared in `streams`.
 */
function unknowable(
  events: readonly ReducibleEvent[],
  kind: ClientKind,
  fresh: RegisterState,
): Unknowable {
  const out: Unknowable = { members: [], channels: [] };
  for (const event of events) {
    if (event.type === 'presence' && kind.options.slimPresence) out.members.push('presences');
    if (event.type === 'stream' && event.op === 'create') {
      const former = new Set(fresh.unsubscribed?.map((s) => s.stream_id));
      out.channels.push(
        ...event.streams.flatMap((s) => (former.has(s.stream_id) ? [s.stream_id] : [])),
      );
    }
    if (event.type !== 'delete_message') continue;
    out.members.push('max_message_id');
    if (event.message_type === 'private') out.members.push('recent_private_conversations');
  }
  return out;
}

/**
 * Lists whose order carries no meaning, sorted before comparing (Zulip's verify_action
 * normalizes the same ones): the reducer appends where the server's query orders differently.
 */
function normalize(state: RegisterState, skip: Unknowable): RegisterState {
  const copy = structuredClone(state) as RegisterState & Record<string, unknown>;
  for (const name of [...EXCLUDED_MEMBERS, ...skip.members]) delete copy[name];
  const compared = <T extends { stream_id: number }>(list: T[] | undefined) =>
    list?.filter((s) => !skip.channels.includes(s.stream_id));
  copy.unsubscribed = compared(copy.unsubscribed);
  copy.never_subscribed = compared(copy.never_subscribed);
  const byNumber =
    <T>(key: (x: T) => number) =>
    (a: T, b: T) =>
      key(a) - key(b);
  const byText =
    <T>(key: (x: T) => string) =>
    (a: T, b: T) =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  copy.realm_users?.sort(byNumber((u) => u.user_id));
  copy.realm_non_active_users?.sort(byNumber((u) => u.user_id));
  copy.realm_bots?.sort(byNumber((u) => u.user_id));
  copy.subscriptions?.sort(byNumber((s) => s.stream_id));
  copy.unsubscribed?.sort(byNumber((s) => s.stream_id));
  copy.streams?.sort(byNumber((s) => s.stream_id));
  copy.never_subscribed?.sort(byNumber((s) => s.stream_id));
  copy.realm_default_streams?.sort(byNumber((s) => s.stream_id));
  copy.realm_user_groups?.sort(byNumber((g) => g.id));
  copy.user_topics?.sort(byText((t) => `${t.stream_id}\u0000${t.topic_name.toLowerCase()}`));
  copy.muted_users?.sort(byNumber((m) => m.id));
  if (copy.unread_msgs) {
    copy.unread_msgs.streams.sort(byText((s) => `${s.stream_id}\u0000${s.topic.toLowerCase()}`));
    copy.unread_msgs.pms.sort(byNumber((p) => p.other_user_id));
    copy.unread_msgs.huddles.sort(byText((h) => h.user_ids_string));
    copy.unread_msgs.mentions.sort((a, b) => a - b);
  }
  return copy;
}

/** Paths where two JSON values differ, with both values, for a readable failure. */
export function differences(actual: unknown, expected: unknown, path = ''): string[] {
  if (Object.is(actual, expected)) return [];
  if (
    typeof actual !== 'object' ||
    typeof expected !== 'object' ||
    actual === null ||
    expected === null ||
    Array.isArray(actual) !== Array.isArray(expected)
  ) {
    return [`${path || '.'}: reduced ${JSON.stringify(actual)}, fresh ${JSON.stringify(expected)}`];
  }
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  if (Array.isArray(a) && Array.isArray(e) && a.length !== e.length) {
    return [`${path}: reduced ${summary(a)}, fresh ${summary(e)}`];
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(e)]);
  return [...keys].flatMap((key) => differences(a[key], e[key], `${path}.${key}`));
}

/** A list as its elements' ids where they have one (records), else as JSON. */
function summary(list: unknown[]): string {
  const ids = list.map((x) => {
    if (typeof x !== 'object' || x === null) return JSON.stringify(x);
    const r = x as Record<string, unknown>;
    const id = r.user_id ?? r.stream_id ?? r.id ?? r.scheduled_message_id;
    return typeof id === 'number' || typeof id === 'string' ? String(id) : JSON.stringify(x);
  });
  return `${list.length} [${ids.join(', ')}]`;
}

/** One user's queue as one kind of client, with the state it has reached. */
export interface Watch {
  who: TestUser;
  kind: ClientKind;
  queueId: string;
  state: RegisterState;
}

export interface VerifyOptions {
  /** Registration parameters of every watcher, e.g. `fetch_event_types`. */
  form?: Record<string, string>;
  /** Watchers besides each user with each kind of client: a user with one more kind. */
  extra?: [TestUser, ClientKind][];
}

/** What one verified step saw: the events each watcher received. */
export interface StepResult {
  events: Map<Watch, ReducibleEvent[]>;
}

/**
 * Watches `users` with every kind of client and checks each action given to `step`. Use one
 * per test (or one per sequence of actions): the watchers' queues carry the state from step to
 * step.
 */
export class ActionVerifier {
  watches: Watch[] = [];
  /** Every event variant the watchers received (libs/protocol/variants.ts names them). */
  readonly seen = new Set<string>();

  constructor(
    private readonly org: Organization,
    private readonly users: TestUser[],
    private readonly options: VerifyOptions = {},
    private readonly kinds: readonly ClientKind[] = CLIENT_KINDS,
  ) {}

  async start(): Promise<void> {
    const watchers: [TestUser, ClientKind][] = [
      ...this.users.flatMap((who) => this.kinds.map((kind): [TestUser, ClientKind] => [who, kind])),
      ...(this.options.extra ?? []),
    ];
    this.watches = await Promise.all(watchers.map(([who, kind]) => this.register(who, kind)));
  }

  private async register(who: TestUser, kind: ClientKind): Promise<Watch> {
    const body = await this.org.register(who, { ...kind.form, ...this.options.form });
    const { queue_id: queueId, ...state } = body;
    return { who, kind, queueId, state: state as RegisterState };
  }

  /**
   * Runs `action`, applies each watcher's events to its state and requires the result to equal
   * a fresh registration. Returns the action's result. `unrecorded`: users who get one event the
   * outbox does not hold (typing notifications go straight to the domain streams), so it is
   * waited for on their queues all the same.
   */
  async step<T>(action: () => Promise<T>, options: { unrecorded?: number[] } = {}): Promise<T> {
    if (!this.watches.length) await this.start();
    const mark = await outboxMark(this.org.t);
    const result = await action();
    const emitted = await eventsAfter(this.org.t, mark);
    const emails = new Map(this.watches.map((w) => [w.who.user.id, w.who.email]));
    // The watchers are independent: each waits for its events and registers again at once.
    const outcomes = await Promise.all(
      this.watches.map((watch) => this.check(watch, emitted, emails, options.unrecorded ?? [])),
    );
    const failures = outcomes.flatMap((o) => o.failures);
    const next = outcomes.map((o) => o.fresh);
    this.watches = next;
    if (failures.length) throw new Error(`verify_action:\n${failures.join('\n')}`);
    return result;
  }

  /** One watcher's part of a step: its events applied, compared with a fresh registration. */
  private async check(
    watch: Watch,
    emitted: RecordedEvent[],
    emails: Map<number, string>,
    unrecorded: number[],
  ): Promise<{ fresh: Watch; failures: string[] }> {
    const failures: string[] = [];
    const expected = emitted.flatMap((row) =>
      row.users.includes(watch.who.user.id)
        ? eventsForQueue(
            {
              id: watch.queueId,
              userId: watch.who.user.id,
              realmId: this.org.realm.id,
              eventTypes: null,
              narrow: [],
              allPublicStreams: false,
              applyMarkdown: watch.kind.applyMarkdown,
              clientGravatar: watch.kind.clientGravatar,
              slimPresence: watch.kind.options.slimPresence,
              capabilities: watch.kind.capabilities,
              client: 'verify-action',
            },
            row.event as unknown as DomainEvent,
            { emailOf: (id) => emails.get(id), isRecipient: true },
          )
        : [],
    );
    const count = expected.length + (unrecorded.includes(watch.who.user.id) ? 1 : 0);
    const received = count
      ? await this.org.eventsUntil(
          watch.who,
          watch.queueId,
          (got) => got.filter((e) => e.type !== 'heartbeat').length >= count,
          // On a loaded machine the events of one commit can arrive seconds apart.
          15_000,
        )
      : [];
    const events = received.filter((e) => e.type !== 'heartbeat') as ReducibleEvent[];
    if (events.length !== count) {
      const got = events.map((e) => variantOf(e)).join(', ');
      failures.push(
        `${label(watch)}: received ${events.length} events [${got}], expected ${count}`,
      );
    }
    for (const event of events) this.seen.add(variantOf(event));
    const reduced = applyEvents(structuredClone(watch.state), events, {
      ...watch.kind.options,
      userId: watch.who.user.id,
      email: watch.who.email,
    });
    // The old queue goes while the fresh registration is read: it would otherwise keep
    // receiving every later step's events.
    const [, fresh] = await Promise.all([
      request(this.org.events.app)
        .delete('/api/v1/events')
        .set('Host', this.org.host)
        .set('Authorization', watch.who.auth)
        .type('form')
        .send({ queue_id: watch.queueId }),
      this.register(watch.who, watch.kind),
    ]);
    const skip = unknowable(events, watch.kind, fresh.state);
    const diff = differences(normalize(reduced, skip), normalize(fresh.state, skip));
    if (diff.length) {
      const types = events.map((e) => ('op' in e ? `${e.type}:${e.op}` : e.type)).join(', ');
      failures.push(`${label(watch)} after [${types}]:\n  ${diff.slice(0, 20).join('\n  ')}`);
    }
    return { fresh, failures };
  }
}

/**
 * Requires that the watchers of `verifier` received each of `variants`: the coverage test
 * (coverage.test.ts) reads these lists from the test files, so a listed variant is a checked one.
 */
export function expectCovered(verifier: ActionVerifier, variants: string[]): void {
  const missing = variants.filter((v) => !verifier.seen.has(v));
  if (missing.length) {
    throw new Error(
      `variants not received: ${missing.join(', ')}; received: ${[...verifier.seen].sort().join(', ')}`,
    );
  }
}

const label = (watch: Watch) => `${watch.who.user.fullName} (${watch.kind.name})`;

/** The answer of a request that must succeed, for actions under test. */
export async function ok(
  req: PromiseLike<{ status: number; body: Record<string, unknown> }>,
): Promise<Record<string, unknown>> {
  const res = await req;
  if (res.status !== 200)
    throw new Error(`action failed (${res.status}): ${JSON.stringify(res.body)}`);
  return res.body;
}
