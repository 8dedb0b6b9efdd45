import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import express from 'express';
import zulip, { type ZulipClient, type ZulipResponse } from 'zulip-js';
import type { TestUser } from '../../test/factories';
import { freePort } from '../../test/free-port';
import type { TestContext } from '../../test/harness';
import { expectOpenApiResponse } from '../../test/openapi';
import { type Organization, organization } from '../../test/organization';

/**
 * Issue 14: the official JavaScript client (npm `zulip-js`) through its main flows, against one
 * URL: the API app and the events app behind one loopback port, the way every Zulip client knows
 * a server (one site URL).
 */
let t: TestContext;
let server: Server;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let site: string;
const PASSWORDS = { alice: 'alice has a long password', bob: 'bob has a long password' };

beforeAll(async () => {
  const port = await freePort();
  site = `http://localhost:${port}`;
  org = await organization({
    env: { EXTERNAL_HOST: `localhost:${port}` },
    realm: { stringId: '' },
    events: true,
    members: { alice: { password: PASSWORDS.alice }, bob: { password: PASSWORDS.bob } },
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

/** A queue read as zulip-js's `events.retrieve` reads it, remembering what was acknowledged. */
function follow(client: ZulipClient, queue: ZulipResponse) {
  let lastEventId = queue.last_event_id as number;
  return {
    /** Polls (non-blocking) until an event matches, and returns it. */
    async next(match: (event: ZulipResponse) => boolean): Promise<ZulipResponse> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const res = await client.events.retrieve({
          queue_id: queue.queue_id,
          last_event_id: lastEventId,
          dont_block: true,
        });
        expect(res.result).toBe('success');
        for (const event of res.events as ZulipResponse[]) {
          lastEventId = Math.max(lastEventId, event.id as number);
          if (match(event)) return event;
        }
        if (Date.now() > deadline) throw new Error('no matching event');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

describe('zulip-js against one URL', () => {
  let aliceClient: ZulipClient;
  let bobClient: ZulipClient;

  it('logs in with a password (fetch_api_key)', async () => {
    aliceClient = await zulip({ username: alice.email, password: PASSWORDS.alice, realm: site });
    bobClient = await zulip({ username: bob.email, password: PASSWORDS.bob, realm: site });
    expect(aliceClient.config.apiKey).toBe(alice.apiKey);
    expect(bobClient.config.apiKey).toBe(bob.apiKey);
  });

  it('registers, sends, receives, edits, reacts, flags, types, deletes and deregisters', async () => {
    const queue = await bobClient.queues.register({
      event_types: [
        'message',
        'update_message',
        'delete_message',
        'reaction',
        'update_message_flags',
        'typing',
      ],
    });
    expect(queue).toMatchObject({ result: 'success', queue_id: expect.any(String) });
    // The state of the event types asked for, and only that.
    expect(queue.unread_msgs).toMatchObject({ count: 0 });
    expect(queue).not.toHaveProperty('realm_users');
    const events = follow(bobClient, queue);

    const sent = await aliceClient.messages.send({
      type: 'stream',
      to: 'general',
      topic: 'zulip-js',
      content: 'Hello **Bob**',
    });
    expect(sent).toMatchObject({ result: 'success', id: expect.any(Number) });
    const id = sent.id as number;
    const received = await events.next((e) => e.type === 'message');
    expect(received.message).toMatchObject({
      id,
      sender_email: alice.email,
      display_recipient: 'general',
      subject: 'zulip-js',
      content: 'Hello **Bob**',
    });

    const edited = await aliceClient.messages.update({ message_id: id, content: 'Hello again' });
    expect(edited.result).toBe('success');
    expect(await events.next((e) => e.type === 'update_message')).toMatchObject({
      message_id: id,
      content: 'Hello again',
    });

    expect((await bobClient.reactions.add({ message_id: id, emoji_name: 'octopus' })).result).toBe(
      'success',
    );
    expect(await events.next((e) => e.type === 'reaction')).toMatchObject({
      op: 'add',
      message_id: id,
      emoji_name: 'octopus',
      user_id: bob.user.id,
    });
    expect(
      (await bobClient.reactions.remove({ message_id: id, emoji_name: 'octopus' })).result,
    ).toBe('success');
    expect(await events.next((e) => e.type === 'reaction')).toMatchObject({
      op: 'remove',
      emoji_name: 'octopus',
    });

    const starred = await bobClient.messages.flags.add({ messages: [id], flag: 'starred' });
    expect(starred).toMatchObject({ result: 'success', messages: [id] });
    expect(await events.next((e) => e.type === 'update_message_flags')).toMatchObject({
      op: 'add',
      flag: 'starred',
      messages: [id],
    });
    expect(
      (await bobClient.messages.flags.remove({ messages: [id], flag: 'starred' })).result,
    ).toBe('success');
    expect(await events.next((e) => e.type === 'update_message_flags')).toMatchObject({
      op: 'remove',
      flag: 'starred',
    });

    expect((await aliceClient.typing.send({ to: [bob.user.id], op: 'start' })).result).toBe(
      'success',
    );
    expect(await events.next((e) => e.type === 'typing')).toMatchObject({
      op: 'start',
      sender: { user_id: alice.user.id, email: alice.email },
    });

    const fetched = await bobClient.messages.getById({ message_id: id });
    expect(fetched.message).toMatchObject({ id, content: '<p>Hello again</p>' });

    expect((await aliceClient.messages.deleteById({ message_id: id })).result).toBe('success');
    expect(await events.next((e) => e.type === 'delete_message')).toMatchObject({
      message_id: id,
    });

    const gone = await bobClient.queues.deregister({ queue_id: queue.queue_id as string });
    expect(gone).toEqual({ result: 'success', msg: '' });
    const after = await bobClient.events.retrieve({ queue_id: queue.queue_id, dont_block: true });
    expect(after).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID' });
    expectOpenApiResponse('/events', 'delete', gone);
  });

  it('callOnEachEvent hands each event to the callback', async () => {
    const listener: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        require.resolve('../../test/zulip-js-listener.ts'),
        site,
        bob.email,
        bob.apiKey,
        JSON.stringify(['message']),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const seen: ZulipResponse[] = [];
    let buffered = '';
    listener.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      // zulip-js logs its own errors on stdout too; events are the JSON lines.
      for (const line of lines) if (line.startsWith('{')) seen.push(JSON.parse(line));
    });
    try {
      // The listener registers its queue when it is ready; messages sent before are not its.
      const sentIds: number[] = [];
      for (let attempt = 0; attempt < 40 && seen.length === 0; attempt++) {
        const sent = await aliceClient.messages.send({
          type: 'direct',
          to: [bob.user.id],
          content: `ping ${attempt}`,
        });
        sentIds.push(sent.id as number);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]).toMatchObject({ type: 'message', message: { sender_email: alice.email } });
      expect(sentIds).toContain(seen[0].message.id);
    } finally {
      listener.kill('SIGKILL');
      await new Promise((resolve) => listener.once('exit', resolve));
    }
  }, 40_000);
});
