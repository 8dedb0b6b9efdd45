import { Redis } from 'ioredis';
import { flushPublishedMarks } from '../events/outbox';
import request from 'supertest';
import { createApiApp } from '../../apps/api/app';
import { deliverOutgoingWebhook } from '../domain/outgoing-webhooks/deliver-webhook';
import { sendMessage } from '../domain/messages/send-message';
import { ensureGroup } from '../events/domain-stream';
import { startEventsTier, type EventsTier } from '../events/events-tier';
import { eventKeys } from '../events/keys';
import { enqueueJob, JobName } from '../jobs';
import { recordingLog } from '../../test/recording-log';
import { startOpsServer, type OpsServer } from '../runtime/ops-server';
import { BOOT_PART, startingUntilDone } from '../stores/start-when-reachable';
import type { TestUser } from '../../test/factories';
import type { TestContext } from '../../test/harness';
import { makeChannel } from '../../test/channel-factories';
import { makeOutgoingBot, startHttpReceiver, type HttpReceiver } from '../../test/worker-factories';
import { freePort } from '../../test/free-port';
import { watchEventsTier, watchJobQueues, watchOutbox } from '.';
import { type Organization, organization } from '../../test/organization';

/**
 * The operators' view: request log lines, Prometheus metrics read from the real Redis and
 * PostgreSQL at scrape time, and the probes, on their own listener.
 */
let t: TestContext;
let tier: EventsTier;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let receiver: HttpReceiver;
let opsUrl: string;
let ops: OpsServer;
const recorded = recordingLog();
const { lines } = recorded;

beforeAll(async () => {
  const port = await freePort();
  org = await organization({
    env: {
      METRICS_PORT: String(port),
      OUTGOING_WEBHOOK_TIMEOUT_SECONDS: '0.5',
      OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    },
    members: { alice: 'member', bob: 'member' },
  });
  ({ t } = org);
  ({ alice, bob } = org.users);
  opsUrl = `http://127.0.0.1:${port}`;
  receiver = await startHttpReceiver();
  // The dispatchers' group, but no dispatcher: what is published stays in the streams, as lag.
  const keys = eventKeys(t.config.redisPrefix);
  for (let p = 0; p < t.config.dispatchPartitions; p++) {
    await ensureGroup(t.redis, keys.domainStream(p));
  }
  tier = await startEventsTier(t, { dispatch: false, gcIntervalMs: 3_600_000 });
  watchEventsTier(t, tier);
  watchOutbox(t);
  watchJobQueues(t);
  ops = await startOpsServer(t, 'all');
  ops.booted();
});
afterAll(async () => {
  await ops.stop();
  await tier.stop();
  await receiver.close();
  await org.close();
});

/** The API app with a logger that keeps its lines. */
function loggedApp() {
  return createApiApp({ ...t, log: recorded.log });
}

async function scrape(): Promise<string> {
  const res = await fetch(`${opsUrl}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

const sample = (text: string, name: string, labels = ''): number | undefined => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && labels.split(',').every((x) => l.includes(x)));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};

describe('request log', () => {
  it('writes one info line per request with the full path, user, status and timing', async () => {
    lines.length = 0;
    const app = loggedApp();
    const res = await request(app)
      .get('/api/v1/users/me')
      .set('Host', org.host)
      .set('Authorization', alice.auth)
      .set('X-Request-Id', 'req-1');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('req-1');
    const requestLines = lines.filter((l) => l.message === 'request');
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      level: 'info',
      fields: {
        requestId: 'req-1',
        method: 'GET',
        path: '/api/v1/users/me',
        status: 200,
        userId: alice.user.id,
      },
    });
    expect(typeof requestLines[0].fields.ms).toBe('number');
  });

  it("adds Zulip's error code and message on a 4xx", async () => {
    lines.length = 0;
    const res = await request(loggedApp())
      .get('/api/v1/streams/999999')
      .set('Host', org.host)
      .set('Authorization', alice.auth);
    expect(res.status).toBe(400);
    const [line] = lines.filter((l) => l.message === 'request');
    expect(line.fields).toMatchObject({
      path: '/api/v1/streams/999999',
      status: 400,
      userId: alice.user.id,
      code: res.body.code,
      error: res.body.msg,
    });
  });

  it('logs a failed authentication without a user, and probes only at debug', async () => {
    lines.length = 0;
    const app = loggedApp();
    await request(app).get('/api/v1/users/me').set('Host', org.host);
    await request(app).get('/healthz');
    const logged = lines.filter((l) => l.message === 'request');
    expect(logged.map((l) => [l.level, l.fields.path, l.fields.status, l.fields.userId])).toEqual([
      ['info', '/api/v1/users/me', 401, null],
      ['debug', '/healthz', 200, null],
    ]);
    expect(logged[0].fields.code).toBe('UNAUTHORIZED');
  });
});

describe('/metrics on the ops listener', () => {
  it('is not an API route', async () => {
    const res = await request(t.app).get('/metrics').set('Host', org.host);
    expect(res.status).toBe(404);
  });

  it('has latency histograms by route pattern', async () => {
    await request(loggedApp())
      .get(`/api/v1/users/${bob.user.id}`)
      .set('Host', org.host)
      .set('Authorization', alice.auth);
    const text = await scrape();
    expect(
      sample(
        text,
        'chat_http_request_duration_seconds_count',
        'route="/api/v1/users/:user_id",method="GET",status="200",tier="all"',
      ),
    ).toBeGreaterThanOrEqual(1);
  });

  it('counts live queues, the lag of undispatched domain events and the outbox backlog', async () => {
    const before = await scrape();
    const queues = sample(before, 'chat_events_queues_alive', 'tier="all"') ?? 0;
    await org.register(bob);
    await org.register(bob);
    const channel = await makeChannel(t, org.realm, { subscribers: [alice.user, bob.user] });
    const lagOf = (text: string) =>
      [...Array(t.config.dispatchPartitions).keys()]
        .map((p) => sample(text, 'chat_dispatch_lag_entries', `partition="${p}"`) ?? 0)
        .reduce((a, b) => a + b, 0);
    await sendMessage(t, {
      sender: alice.user,
      realm: org.realm,
      type: 'stream',
      to: channel.id,
      topic: 'lag',
      content: 'not dispatched: no dispatcher runs',
      clientName: 'test',
    });
    // Its row is on the stream, and marked published with the window's others.
    await flushPublishedMarks(t);
    await t.db.$executeRaw`
      INSERT INTO outbox_events (realm_id, event_json, users_json)
      VALUES (${org.realm.id}, '{"type":"alert_words","alert_words":[]}'::jsonb, '[]'::jsonb)`;
    const after = await scrape();
    expect(sample(after, 'chat_events_queues_alive', 'tier="all"')).toBe(queues + 2);
    expect(lagOf(after)).toBeGreaterThan(lagOf(before));
    expect(sample(after, 'chat_outbox_backlog', 'tier="all"')).toBe(1);
    expect(after).toContain('chat_events_polls_waiting{tier="all"} 0');
    expect(after).toContain('# TYPE chat_dispatch_latency_seconds histogram');
  });

  it('measures dispatch latency, and the lag drains once a dispatcher runs', async () => {
    const dispatching = await startEventsTier(t, { gcIntervalMs: 3_600_000 });
    watchEventsTier(t, dispatching);
    const deadline = Date.now() + 15_000;
    let text = await scrape();
    while (/^chat_dispatch_lag_entries\{.*\} [1-9]/m.test(text) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      text = await scrape();
    }
    await dispatching.stop();
    watchEventsTier(t, tier);
    expect(text).not.toMatch(/^chat_dispatch_lag_entries\{.*\} [1-9]/m);
    expect(sample(text, 'chat_dispatch_latency_seconds_count', 'tier="all"')).toBeGreaterThan(0);
  });

  it('has BullMQ counts per queue and state, and webhook attempts and failures', async () => {
    await enqueueJob(
      t,
      JobName.DELIVER_SCHEDULED_MESSAGE,
      { scheduledMessageId: 1 },
      { jobId: 'metrics-test', delay: 3_600_000 },
    );
    const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl: receiver.url });
    receiver.reply = { status: 500, body: 'boom' };
    const dm = await sendMessage(t, {
      sender: alice.user,
      realm: org.realm,
      type: 'private',
      to: [bot.id],
      content: 'hello bot',
      clientName: 'test',
    });
    await deliverOutgoingWebhook(
      t,
      { messageId: dm.id, botId: bot.id },
      { attempt: 1, isLastAttempt: false },
    );
    const text = await scrape();
    expect(sample(text, 'chat_jobs', 'queue="scheduled-messages",state="delayed"')).toBe(1);
    expect(sample(text, 'chat_jobs', 'queue="outgoing-webhooks",state="failed"')).toBe(0);
    expect(text).toMatch(/^chat_webhook_attempts_total\{tier="all"\} 1$/m);
    expect(sample(text, 'chat_webhook_failures_total', 'reason="http_500"')).toBe(1);
  });
});

describe('probes', () => {
  it('call a process that is still booting unready, and name what it waits for', async () => {
    const booted = startingUntilDone(BOOT_PART);
    try {
      const res = await request(t.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ ready: false, postgres: 'ok', starting: [BOOT_PART] });
      // Not in rotation either: it may not listen on its API port yet.
      const pod = await request(t.app).get('/readyz/pod');
      expect(pod.status).toBe(503);
      expect(pod.body).toMatchObject({ ready: false, booting: true, draining: false });
    } finally {
      booted();
    }
    expect((await request(t.app).get('/readyz')).status).toBe(200);
    expect((await request(t.app).get('/readyz/pod')).status).toBe(200);
  });
  it('answer liveness and readiness on the API app and the ops listener', async () => {
    expect((await request(t.app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(t.app).get('/readyz')).body).toEqual({
      ready: true,
      postgres: 'ok',
      redis: 'ok',
    });
    expect((await fetch(`${opsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${opsUrl}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${opsUrl}/readyz/pod`)).json()).toMatchObject({
      ready: true,
      shared: { ready: true },
    });
  });

  it('report not ready, while still alive, when Redis does not answer', async () => {
    // A port nothing listens on: the real client fails to connect.
    const closed = await freePort();
    const deadRedis = new Redis(`redis://127.0.0.1:${closed}`, {
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    const app = createApiApp({ ...t, redis: deadRedis });
    expect((await request(app).get('/healthz')).status).toBe(200);
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ ready: false, postgres: 'ok' });
    expect(res.body.redis).not.toBe('ok');
    // The pod itself can still serve: a shared store's outage does not take it out of rotation.
    const pod = await request(app).get('/readyz/pod');
    expect(pod.status).toBe(200);
    expect(pod.body).toMatchObject({ ready: true, draining: false, shared: { ready: false } });
    deadRedis.disconnect();
  });
});

it('serves nothing else on the ops listener', async () => {
  const res = await fetch(`${opsUrl}/api/v1/users/me`);
  expect(res.status).toBe(404);
  expect((await fetch(opsUrl)).status).toBe(404);
});
