import express from 'express';
import type { Server } from 'node:http';
import zulip from 'zulip-js';
import { freePort } from '../../test/free-port';
import type { TestUser } from '../../test/factories';
import type { TestContext } from '../../test/harness';
import { expectOpenApiResponse } from '../../test/openapi';
import { type Organization, organization } from '../../test/organization';

/**
 * The official JavaScript client against both tiers, behind one address the way a reverse proxy
 * serves them: `/api/v1/events` to the events tier, everything else to the API tier.
 */
let t: TestContext;
let server: Server;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let baseUrl: string;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://localhost:${port}`;
  org = await organization({
    env: { EXTERNAL_HOST: `localhost:${port}` },
    realm: { stringId: '' },
    events: true,
    members: { alice: 'member', bob: 'member' },
  });
  ({ t } = org);
  ({ alice, bob } = org.users);
  const front = express();
  front.use((req, res, next) =>
    req.path.startsWith('/api/v1/events') ? org.events.app(req, res) : t.app(req, res, next),
  );
  server = await new Promise<Server>((resolve) => {
    const s = front.listen(port, '127.0.0.1', () => resolve(s));
  });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await org.close();
});

describe('zulip-js', () => {
  it('registers a queue and receives a message sent by another user', async () => {
    const aliceClient = await zulip({
      username: alice.email,
      apiKey: alice.apiKey,
      realm: baseUrl,
    });
    const bobClient = await zulip({ username: bob.email, apiKey: bob.apiKey, realm: baseUrl });
    const queue = await aliceClient.queues.register({ event_types: ['message'] });
    expect(queue.result).toBe('success');
    const waiting = aliceClient.events.retrieve({
      queue_id: queue.queue_id,
      last_event_id: queue.last_event_id,
    });
    const sent = await bobClient.messages.send({
      type: 'direct',
      to: [alice.user.id],
      content: 'Hello from zulip-js',
    });
    expect(sent.result).toBe('success');
    const got = await waiting;
    expect(got.result).toBe('success');
    expect(got.events).toHaveLength(1);
    const [event] = got.events;
    expect(event.type).toBe('message');
    expect(event.message.id).toBe(sent.id);
    expect(event.message.sender_email).toBe(bob.email);
    expect(event.message.content).toBe('Hello from zulip-js');
    expectOpenApiResponse('/events', 'get', got);

    const deregistered = await aliceClient.queues.deregister({ queue_id: queue.queue_id });
    expect(deregistered.result).toBe('success');
  });
});
