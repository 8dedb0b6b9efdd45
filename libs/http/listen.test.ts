import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../test/factories';
import { register, startTestEvents, type TestEvents } from '../../test/events-factories';
import { startTestContext, type TestContext } from '../../test/harness';
import { listenHttp } from './listen';

/**
 * Requests must arrive within HTTP_REQUEST_TIMEOUT_SECONDS (1 s here): a trickled body or head is
 * answered 408 and its connection closed; a long-poll, which has arrived whole, waits longer.
 */
jest.setTimeout(30_000);

let t: TestContext;
let ev: TestEvents;
let api: Server;
let events: Server;
let org: TestRealm;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestContext({ HTTP_REQUEST_TIMEOUT_SECONDS: '1', HEARTBEAT_SECONDS: '3' });
  ev = await startTestEvents(t);
  org = await makeRealm(t);
  alice = await makeUser(t, org.realm);
  api = await listenHttp(t, t.app, 0);
  events = await listenHttp(t, ev.app, 0);
});
afterAll(async () => {
  for (const server of [api, events]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await ev.stop();
  await t.close();
});

const portOf = (server: Server) => (server.address() as AddressInfo).port;

/**
 * Writes `head`, then one more byte of `trickle` every 300 ms; resolves with what the server
 * wrote by the time it closed the connection (or after 10 s).
 */
function slowRequest(server: Server, head: string, trickle = ''): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(portOf(server), '127.0.0.1');
    let answer = '';
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++]);
    }, 300);
    const done = () => {
      clearInterval(drip);
      clearTimeout(limit);
      resolve(answer);
    };
    const limit = setTimeout(() => {
      socket.destroy();
      done();
    }, 10_000);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.write(head);
  });
}

it('answers 408 to a body trickled past the limit', async () => {
  const body = `type=direct&to=%5B${alice.user.id}%5D&content=slow`;
  const answer = await slowRequest(
    api,
    [
      'POST /api/v1/messages HTTP/1.1',
      `Host: ${org.host}`,
      `Authorization: ${alice.auth}`,
      'Content-Type: application/x-www-form-urlencoded',
      `Content-Length: ${body.length}`,
      '',
      '',
    ].join('\r\n'),
    body,
  );
  expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(await t.db.message.count({ where: { content: 'slow' } })).toBe(0);
});

it('answers 408 to a head trickled past the limit', async () => {
  const answer = await slowRequest(
    api,
    'GET /api/v1/users/me HTTP/1.1\r\n',
    `Host: ${org.host}\r\nX-Slow: ${'z'.repeat(40)}\r\n\r\n`,
  );
  expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
});

it('lets a long-poll wait past the limit for its heartbeat', async () => {
  const queue = await register(t, org.host, alice.auth, { event_types: '["message"]' });
  const started = Date.now();
  const res = await fetch(
    `http://127.0.0.1:${portOf(events)}/api/v1/events?queue_id=${queue.queue_id}&last_event_id=${queue.last_event_id}`,
    { headers: { Host: org.host, Authorization: alice.auth } },
  );
  expect(res.status).toBe(200);
  const body = (await res.json()) as { events: { type: string }[] };
  expect(body.events.map((e) => e.type)).toEqual(['heartbeat']);
  // The heartbeat (3 s) came, not the 408 (1 s).
  expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
});
