import express, { type Express } from 'express';
import type { RequestListener } from 'node:http';
import request from 'supertest';
import { errorHandler, unknownRoute } from '../../libs/http/error-handler';
import { requestLog } from '../../libs/http/request-log';
import { recordingLog } from '../../test/recording-log';
import type { TestUser } from '../../test/factories';
import { type Organization, organization } from '../../test/organization';
import { servePollsFirst, wellFormedPoll } from './well-formed-poll';

describe('wellFormedPoll', () => {
  it('takes a poll whose query holds only a queue id, a last event id and dont_block', () => {
    expect(wellFormedPoll('/api/v1/events?queue_id=1%3Aab&last_event_id=-1')).toEqual({
      queueId: '1:ab',
      lastEventId: -1,
      dontBlock: false,
    });
    expect(wellFormedPoll('/json/events?dont_block=true&queue_id=q')).toEqual({
      queueId: 'q',
      dontBlock: true,
    });
  });

  it('leaves everything else to the route', () => {
    for (const url of [
      '/api/v1/events',
      '/api/v1/events?last_event_id=3',
      '/api/v1/events?queue_id=',
      '/api/v1/events?queue_id=q&last_event_id=1.5',
      '/api/v1/events?queue_id=q&last_event_id=x',
      '/api/v1/events?queue_id=q&dont_block=1',
      '/api/v1/events?queue_id=q&queue_id=r',
      '/api/v1/events?queue_id=q&event_types=%5B%22message%22%5D',
      '/api/v1/messages?queue_id=q',
      '/api/v1/events/?queue_id=q',
    ]) {
      expect(wellFormedPoll(url)).toBeNull();
    }
  });
});

describe('polls served ahead of the routes', () => {
  let org: Organization<'alice' | 'bob'>;
  // Nothing but the early handler: what it does not serve is unknown here (404).
  let onlyPolls: RequestListener;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    org = await organization({
      env: { HEARTBEAT_SECONDS: '1' },
      events: true,
      members: { alice: 'member', bob: 'member' },
    });
    ({ alice, bob } = org.users);
    const { t } = org;
    const pollsFirst = servePollsFirst(t, org.events.tier);
    const rest = express().use(requestLog(t.log)).use(unknownRoute).use(errorHandler(t.log));
    onlyPolls = (req, res) => {
      if (!pollsFirst(req, res)) void rest(req, res);
    };
  });
  afterAll(() => org.close());

  const get = (path: string, caller: TestUser, app: Express | RequestListener = onlyPolls) =>
    request(app).get(path).set('Host', org.host).set('Authorization', caller.auth);

  it('answers as the route does, rate-limit headers included', async () => {
    const q = await org.register(alice);
    const res = await get(
      `/api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=-1&dont_block=true`,
      alice,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', events: [], queue_id: q.queue_id });
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      expect(res.headers[name]).toMatch(/^\d+$/);
    }
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it("names each answer by the client's request id, or a new one, as its log line does", async () => {
    const { log, lines } = recordingLog();
    const served = servePollsFirst({ ...org.t, log }, org.events.tier);
    const app: RequestListener = (req, res) => void served(req, res);
    const q = await org.register(alice);
    const path = `/api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&dont_block=true`;
    const given = await get(path, alice, app).set('X-Request-Id', 'client-7');
    const made = await get(path, alice, app);
    const foreign = await get(path, bob, app);
    expect(given.headers['x-request-id']).toBe('client-7');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(foreign.status).toBe(400);
    expect(foreign.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const logged = lines.filter((line) => line.message === 'request');
    expect(logged.map(({ fields }) => [fields.requestId, fields.status])).toEqual([
      ['client-7', 200],
      [made.headers['x-request-id'], 200],
      [foreign.headers['x-request-id'], 400],
    ]);
  });

  it('refuses as the route does', async () => {
    const q = await org.register(alice);
    const path = `/json/events?queue_id=${encodeURIComponent(q.queue_id)}&dont_block=true`;
    const foreign = await get(path, bob);
    expect(foreign.status).toBe(400);
    expect(foreign.body.msg).toBe('You are not authorized to get events from this queue');
    expect(foreign.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    const missing = await get('/api/v1/events?queue_id=1%3Anope&dont_block=true', alice);
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('BAD_EVENT_QUEUE_ID');
    const unauthenticated = await request(onlyPolls)
      .get(path)
      .set('Host', org.host)
      .set('Authorization', 'Basic eDp5');
    expect(unauthenticated.status).toBe(401);
  });

  it('leaves a malformed poll to the route and its error', async () => {
    expect((await get('/api/v1/events?queue_id=q&last_event_id=x', alice)).status).toBe(404);
    const res = await get('/api/v1/events?queue_id=q&last_event_id=x', alice, org.events.app);
    expect(res.status).toBe(400);
    expect(res.body.result).toBe('error');
    expect(res.body.msg).toMatch(/last_event_id/);
  });
});

describe('a poll over the rate limit', () => {
  it('answers 429 with the rate-limit headers and retry-after', async () => {
    const org = await organization({
      env: { RATE_LIMIT_API_REQUESTS: '3' },
      events: true,
      members: { alice: 'member' },
    });
    try {
      const { alice } = org.users;
      const pollsFirst = servePollsFirst(org.t, org.events.tier);
      const onlyPolls: RequestListener = (req, res) => {
        if (!pollsFirst(req, res)) res.writeHead(404).end();
      };
      const q = await org.register(alice);
      const path = `/api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&dont_block=true`;
      const statuses: number[] = [];
      let limited: request.Response | undefined;
      for (let i = 0; i < 5 && !limited; i++) {
        const res = await request(onlyPolls)
          .get(path)
          .set('Host', org.host)
          .set('Authorization', alice.auth);
        statuses.push(res.status);
        if (res.status === 429) limited = res;
      }
      expect(statuses.slice(0, -1).every((s) => s === 200)).toBe(true);
      expect(limited?.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT' });
      expect(limited?.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited?.headers['x-ratelimit-limit']).toBe('3');
      expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await org.close();
    }
  });
});
