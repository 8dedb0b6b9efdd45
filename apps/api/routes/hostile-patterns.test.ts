import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Stream } from '../../../generated/prisma/client';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';

/** Issue 11: a hostile linkifier or URL template can neither freeze the process nor inject links. */

let t: TestContext;
let org: Organization;
let channel: Stream;
let server: Server;
let base: string;

beforeAll(async () => {
  org = await organization({ channels: { channel: ['owner'] } });
  ({ t } = org);
  ({ channel } = org.channels);
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await org.close();
});

/** A real HTTP request on loopback. */
async function request(method: 'GET' | 'POST', path: string, form?: Record<string, string>) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      Host: org.host,
      Authorization: org.owner.auth,
      ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const body = (await res.json()) as { result: string; id?: number };
  return { status: res.status, body };
}

describe('a catastrophic linkifier (#(?P<id>(a+)+)!)', () => {
  beforeAll(async () => {
    const added = await org.as(org.owner).post('/realm/filters', {
      pattern: '#(?P<id>(a+)+)!',
      url_template: 'https://example.com/{id}',
    });
    expect(added.status).toBe(200);
  });

  it('renders the hostile message quickly and links what it should', async () => {
    const hostile = `#${'a'.repeat(28)}b!`;
    const sent = await request('POST', '/messages', {
      type: 'stream',
      to: String(channel.id),
      topic: 'hostile',
      content: `${hostile} and #aa!`,
    });
    expect(sent.status).toBe(200);
    const row = await t.db.message.findUniqueOrThrow({ where: { id: sent.body.id } });
    expect(row.renderedContent).toBe(
      `<p>${hostile} and <a href="https://example.com/aa">#aa!</a></p>`,
    );
  });

  it('never holds the event loop while hostile messages are sent beside other requests', async () => {
    // Thirty letters: a backtracking engine spends seconds on each of these sends, RE2 microseconds.
    const hostile = `#${'a'.repeat(30)}b!`;
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const sends = Array.from({ length: 4 }, (_, i) =>
      request('POST', '/messages', {
        type: 'stream',
        to: String(channel.id),
        topic: `hostile ${i}`,
        content: hostile,
      }),
    );
    const reads = Array.from({ length: 12 }, () => request('GET', '/users/me'));
    const [sent, read] = await Promise.all([Promise.all(sends), Promise.all(reads)]);
    loopDelay.disable();
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(read.every((r) => r.status === 200 && r.body.result === 'success')).toBe(true);
    // The longest the loop was held, not how long requests took: a busy CI box delays those.
    expect(loopDelay.max / 1e6).toBeLessThan(1000);
  });
});

describe('patterns and templates the server refuses', () => {
  const count = () => t.db.realmFilter.count({ where: { realmId: org.realm.id } });

  it('refuses what RE2 cannot compile with Zulip error, storing nothing', async () => {
    const before = await count();
    const res = await org.as(org.owner).post('/realm/filters', {
      pattern: '(foo',
      url_template: 'https://example.com/',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Bad regular expression: missing ): (foo',
      errors: { pattern: ['Bad regular expression: missing ): (foo'] },
    });
    const backref = await org.as(org.owner).post('/realm/filters', {
      pattern: '(?P<id>a)(?P=id)',
      url_template: 'https://example.com/{id}',
    });
    expect(backref.body.msg).toMatch(/^Bad regular expression: /);
    expect(await count()).toBe(before);
  });

  it('refuses javascript: and other non-web URL templates, storing nothing', async () => {
    const before = await count();
    for (const urlTemplate of ['javascript:alert({id})', 'data:text/html,{id}', '{id}']) {
      const res = await org.as(org.owner).post('/realm/filters', {
        pattern: 'x(?P<id>[0-9]+)',
        url_template: urlTemplate,
      });
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Invalid URL template.',
        errors: { url_template: ['Invalid URL template.'] },
      });
    }
    expect(await count()).toBe(before);
    const playground = await org.as(org.owner).post('/realm/playgrounds', {
      name: 'evil',
      pygments_language: 'Python',
      url_template: 'javascript:alert({code})',
    });
    expect(playground.status).toBe(400);
    expect(playground.body.msg).toBe('Invalid URL template.');
  });
});
