import { readFileSync } from 'node:fs';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../factories';
import { startTestContext, type TestContext } from '../harness';
import { freePort } from '../free-port';
import { startTier, type Tier } from './processes';

/**
 * `npm start` (dist/apps/all/main.js: `npm run build` first) with WEB_CONCURRENCY=2: a primary and two all-tier workers on one port. Clients
 * register, send and poll through that one URL, each on connections of its own, so registrations,
 * sends and polls land on both workers (the primary hands connections out in turn).
 */
jest.setTimeout(90_000);

let t: TestContext;
let all: Tier;
let opsUrl: string;
let org: TestRealm;
let users: TestUser[];

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  users = await Promise.all(
    ['Ann', 'Ben', 'Cas', 'Dee'].map((fullName) => makeUser(t, org.realm, { fullName })),
  );
  const metricsPort = await freePort();
  opsUrl = `http://127.0.0.1:${metricsPort}`;
  all = await startTier(
    'all',
    t.config,
    { WEB_CONCURRENCY: '2', METRICS_PORT: String(metricsPort) },
    undefined,
    { built: true },
  );
});
afterAll(async () => {
  await all?.stop();
  await t.close();
});

/** A request on a connection of its own (no keep-alive), so the primary picks its worker anew. */
async function call(user: TestUser, method: string, path: string, form?: Record<string, string>) {
  const res = await fetch(`${all.url}${path}`, {
    method,
    headers: {
      Authorization: user.auth,
      Connection: 'close',
      ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

it('runs a primary and two workers that each answer the probes', async () => {
  const children = readFileSync(`/proc/${all.child.pid}/task/${all.child.pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .map(Number);
  expect(children).toHaveLength(2);
  // Ready once every worker has booted and answers for itself (the first to listen may be alone).
  let res = await fetch(`${opsUrl}/readyz`);
  for (let attempt = 0; res.status !== 200 && attempt < 60; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    res = await fetch(`${opsUrl}/readyz`);
  }
  expect(res.status).toBe(200);
  const ready = (await res.json()) as { workers: { pid: number; ready: boolean }[] };
  expect(ready.workers.map((w) => w.pid).sort()).toEqual([...children].sort());
  expect(ready.workers.every((w) => w.ready)).toBe(true);
  const metrics = await (await fetch(`${opsUrl}/metrics`)).text();
  expect(metrics).toContain('chat_event_loop_lag_seconds');
});

it('serves register, send and poll through the one URL', async () => {
  const queues = await Promise.all(
    users.map((user) => call(user, 'POST', '/api/v1/register', { event_types: '["message"]' })),
  );
  for (const queue of queues) expect(queue.status).toBe(200);
  // Each poll on its own connection: some wait on the worker that will not dispatch the message.
  const polls = users.map((user, i) =>
    call(
      user,
      'GET',
      `/api/v1/events?queue_id=${String(queues[i].body.queue_id)}&last_event_id=-1`,
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sent = await call(users[0], 'POST', '/api/v1/messages', {
    type: 'direct',
    to: JSON.stringify(users.slice(1).map((u) => u.user.id)),
    content: 'through the one URL',
  });
  expect(sent.status).toBe(200);
  const answers = await Promise.all(polls);
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    const events = answer.body.events as { type: string; message: { id: number } }[];
    expect(events.map((e) => [e.type, e.message.id])).toEqual([['message', sent.body.id]]);
  }
});

it('stops every worker on SIGTERM', async () => {
  const children = readFileSync(`/proc/${all.child.pid}/task/${all.child.pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .map(Number);
  await all.stop('SIGTERM');
  expect(all.child.exitCode).toBe(0);
  for (const pid of children) expect(() => process.kill(pid, 0)).toThrow();
});
