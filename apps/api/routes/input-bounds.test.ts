import { randomBytes } from 'node:crypto';
import type { Stream } from '../../../generated/prisma/client';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';

/**
 * Issue 11: what the OpenAPI fuzz test (apps/api/openapi-fuzz.test.ts) found, one case each.
 * Every one of these answered 500, or matched what it should not, before its fix.
 */

let t: TestContext;
let org: Organization;
let channel: Stream;

beforeAll(async () => {
  org = await organization({
    members: { member: 'member' },
    channels: { abc: ['owner', 'member'] },
  });
  ({ t } = org);
  channel = org.channels.abc;
});
afterAll(() => org.close());

const error = (msg: string) => ({ result: 'error', code: 'BAD_REQUEST', msg });

describe('IDs past the database integer range', () => {
  it('are refused with 400, not a database error', async () => {
    const reactivate = await org.as(org.owner).post('/users/2147483648/reactivate');
    expect(reactivate.status).toBe(400);
    expect(reactivate.body).toEqual(error('Number out of range'));
    const user = await org.as(org.owner).get('/users/9007199254740991');
    expect(user.status).toBe(400);
    const message = await org.as(org.owner).get('/messages/2147483648');
    expect(message.status).toBe(400);
    // Past 64 bits Prisma refuses the number before sending the query.
    const presence = await org.as(org.owner).get('/users/9223372036854775808/presence');
    expect(presence.body).toEqual(error('Number out of range'));
  });
});

describe('values too long for an index', () => {
  it('are refused with 400, storing nothing', async () => {
    const before = await t.db.realmPlayground.count();
    const res = await org.as(org.owner).post('/realm/playgrounds', {
      // Incompressible, so PostgreSQL cannot squeeze it into an 8 KiB index row.
      name: randomBytes(20000).toString('hex'),
      pygments_language: 'Python',
      url_template: 'https://play.example/?c={code}',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(error('Value too long'));
    expect(await t.db.realmPlayground.count()).toBe(before);
  });
});

describe('case-insensitive name lookups', () => {
  it('treat _ and % in a name literally instead of as LIKE wildcards', async () => {
    const exact = await org.as(org.owner).get('/get_stream_id', { stream: 'ABC' });
    expect(exact.body.stream_id).toBe(channel.id);
    for (const wildcard of ['a_c', 'a%', '%']) {
      const res = await org.as(org.owner).get('/get_stream_id', { stream: wildcard });
      expect(res.body).toEqual(error(`Invalid channel name '${wildcard}'`));
    }
  });

  it('survive a name ending in a backslash', async () => {
    const res = await org.as(org.owner).get('/get_stream_id', { stream: 'abc\\' });
    expect(res.body).toEqual(error("Invalid channel name 'abc\\'"));
    const topic = await org.as(org.owner).post('/user_topics', {
      stream_id: channel.id,
      topic: 'ends with \\',
      visibility_policy: 1,
    });
    expect(topic.status).toBe(200);
  });
});

describe('alert words', () => {
  it('removes a word ending in a backslash', async () => {
    const words = JSON.stringify(['path\\', 'Other']);
    expect(
      (await org.as(org.owner).post('/users/me/alert_words', { alert_words: words })).status,
    ).toBe(200);
    const removed = await org.as(org.owner).delete('/users/me/alert_words', {
      alert_words: JSON.stringify(['PATH\\']),
    });
    expect(removed.status).toBe(200);
    expect(removed.body.alert_words).toEqual(['Other']);
  });
});

describe('NUL characters', () => {
  it('are refused in any parameter, top level or inside JSON, changing nothing', async () => {
    const before = await t.db.message.count();
    const sent = await org.as(org.owner).post('/messages', {
      type: 'stream',
      to: channel.id,
      topic: 'a\u0000b',
      content: 'hi',
    });
    expect(sent.status).toBe(400);
    expect(sent.body).toEqual(error('topic: Null characters are not allowed.'));
    const muted = await org.as(org.owner).post('/user_topics', {
      stream_id: channel.id,
      topic: '\u0000',
      visibility_policy: 1,
    });
    expect(muted.body).toEqual(error('topic: Null characters are not allowed.'));
    const nested = await org.as(org.owner).post('/users/me/alert_words', {
      alert_words: JSON.stringify(['ok', 'x\u0000']),
    });
    expect(nested.body).toEqual(error('alert_words: Null characters are not allowed.'));
    expect(await t.db.message.count()).toBe(before);
  });
});

describe('invitations', () => {
  it('take a channel named twice as one', async () => {
    const res = await org.as(org.owner).post('/invites', {
      invitee_emails: 'twice@example.com',
      stream_ids: JSON.stringify([channel.id, channel.id]),
    });
    expect(res.status).toBe(200);
    const invitation = await t.db.invitation.findFirstOrThrow({
      where: { email: 'twice@example.com' },
      include: { streams: true },
    });
    expect(invitation.streams.map((s) => s.streamId)).toEqual([channel.id]);
  });
});
