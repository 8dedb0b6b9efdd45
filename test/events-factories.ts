import type { RequestListener } from 'node:http';
import request from 'supertest';
import { createEventsApp } from '../apps/events/app';
import { startEventsTier, type EventsTier } from '../libs/events/events-tier';
import { type QueueInfo } from '../libs/events/queue-info';
import { DEFAULT_CAPABILITIES } from '../libs/protocol/queue';
import type { AlertWordsEvent } from '../libs/protocol/events/alert-words';
import type { ApiMessage } from '../libs/protocol/message-payload';
import type { TestContext } from './harness';
import { expectOpenApiEvents } from './openapi';
import { api } from './requests';

export interface TestEvents {
  app: RequestListener;
  tier: EventsTier;
  stop(): Promise<void>;
}

/** The events tier (dispatcher, sweeper, long-poll app) in the test process, on the test's Redis prefix. */
export async function startTestEvents(t: TestContext): Promise<TestEvents> {
  const tier = await startEventsTier(t, { gcIntervalMs: 3_600_000 });
  return { app: createEventsApp(t, tier), tier, stop: () => tier.stop() };
}

export interface Registered {
  queue_id: string;
  last_event_id: number;
  [field: string]: unknown;
}

/** `POST /register` through the API app; returns the body. */
export async function register(
  t: TestContext,
  host: string,
  auth: string,
  form: Record<string, string> = {},
): Promise<Registered> {
  const res = await api(t, host, 'post', '/register', auth, form);
  if (res.status !== 200) throw new Error(`register failed: ${JSON.stringify(res.body)}`);
  return res.body as Registered;
}

export interface EventBody {
  id: number;
  type: string;
  [field: string]: unknown;
}

/**
 * `GET /events` on the events app. Every event a successful poll returns is checked against the
 * reference's event schemas, so each test that reads events checks them too.
 */
export function poll(
  events: TestEvents,
  host: string,
  auth: string,
  query: Record<string, string | number | boolean>,
) {
  return request(events.app)
    .get('/api/v1/events')
    .set('Host', host)
    .set('Authorization', auth)
    .query(query)
    .expect((res) => {
      if (res.status === 200 && Array.isArray(res.body.events)) {
        expectOpenApiEvents(res.body.events as EventBody[]);
      }
    });
}

/** Polls (non-blocking) until `predicate` holds for the queue's events or the time is up. */
export async function eventsUntil(
  events: TestEvents,
  host: string,
  auth: string,
  queueId: string,
  predicate: (events: EventBody[]) => boolean,
  timeoutMs = 5000,
): Promise<EventBody[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await poll(events, host, auth, { queue_id: queueId, dont_block: true });
    const got = (res.body.events ?? []) as EventBody[];
    if (predicate(got) || Date.now() > deadline) return got;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A queue's settings as a plain client registers them, for testing event formatting. */
export const queueSettings = (overrides: Partial<QueueInfo> = {}): QueueInfo => ({
  id: 'q1',
  userId: 7,
  realmId: 1,
  eventTypes: null,
  narrow: [],
  allPublicStreams: false,
  applyMarkdown: true,
  clientGravatar: false,
  slimPresence: false,
  capabilities: { ...DEFAULT_CAPABILITIES },
  client: 'test',
  lastAccess: 0,
  ...overrides,
});

/** A small real event told apart by its label, for tests of the queues' mechanics. */
export const labelled = (label: string): AlertWordsEvent => ({
  type: 'alert_words',
  alert_words: [label],
});

/** A message to channel 3 ("Design"), topic "Plans", as the message event carries it. */
export const channelMessage: ApiMessage = {
  id: 10,
  type: 'stream',
  stream_id: 3,
  display_recipient: 'Design',
  subject: 'Plans',
  sender_id: 2,
  sender_email: 'b@example.com',
  sender_full_name: 'B',
  sender_realm_str: 'zulip',
  recipient_id: 30,
  client: 'test',
  timestamp: 0,
  is_me_message: false,
  reactions: [],
  submessages: [],
  topic_links: [],
  content: '<p>x</p>',
  content_type: 'text/html',
  avatar_url: 'https://secure.gravatar.com/avatar/abc?d=identicon',
};
