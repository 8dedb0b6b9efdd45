import { makeChannel } from '../../../test/channel-factories';
import { makeRealm, makeUser, type TestRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { api } from '../../../test/requests';
import { Role } from '../../../libs/domain/users/roles';

let t: TestContext;
let org: TestRealm;

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
});
afterAll(() => t.close());

const call = (
  method: 'get' | 'post' | 'patch' | 'delete',
  path: string,
  auth: string,
  form?: Record<string, string | number>,
) => api(t, org.host, method, path, auth, form);

describe('drafts', () => {
  it('creates, lists, edits and deletes drafts with drafts events', async () => {
    const member = await makeUser(t, org.realm);
    const other = await makeUser(t, org.realm);
    const channel = await makeChannel(t, org.realm, { subscribers: [member.user] });
    const mark = await outboxMark(t);
    const created = await call('post', '/drafts', member.auth, {
      drafts: JSON.stringify([
        {
          type: 'stream',
          to: [channel.id],
          topic: 'plans',
          content: 'Hello',
          timestamp: 1700000000,
        },
        { type: 'private', to: [other.user.id], topic: '', content: 'psst' },
        { type: '', to: [], topic: '', content: 'somewhere' },
      ]),
    });
    expect(created.status).toBe(200);
    expectOpenApiResponse('/drafts', 'post', created.body);
    expect(created.body.ids).toHaveLength(3);
    const [streamId] = created.body.ids as number[];

    const listed = await call('get', '/drafts', member.auth);
    expectOpenApiResponse('/drafts', 'get', listed.body);
    expect(listed.body.count).toBe(3);
    expect(listed.body.drafts[0]).toEqual({
      id: streamId,
      type: 'stream',
      to: [channel.id],
      topic: 'plans',
      content: 'Hello',
      timestamp: 1700000000,
    });

    const edited = await call('patch', `/drafts/${streamId}`, member.auth, {
      draft: JSON.stringify({ type: 'stream', to: [channel.id], topic: 'plans', content: 'Bye' }),
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ result: 'success', msg: '' });
    const deleted = await call('delete', `/drafts/${streamId}`, member.auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ result: 'success', msg: '' });

    const events = (await eventsAfter(t, mark)).map((e) => e.event);
    expect(events[0]).toMatchObject({ type: 'drafts', op: 'add' });
    expect(events[1]).toMatchObject({
      type: 'drafts',
      op: 'update',
      draft: { id: streamId, content: 'Bye' },
    });
    expect(events[2]).toEqual({ type: 'drafts', op: 'remove', draft_id: streamId });
  });

  it('refuses unknown drafts and drafts of others with 404', async () => {
    const member = await makeUser(t, org.realm);
    const other = await makeUser(t, org.realm);
    const [id] = (
      await call('post', '/drafts', other.auth, {
        drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'mine' }]),
      })
    ).body.ids as number[];
    const res = await call('delete', `/drafts/${id}`, member.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'Draft does not exist' });
    const edit = await call('patch', '/drafts/999999', member.auth, {
      draft: JSON.stringify({ type: '', to: [], topic: '', content: 'x' }),
    });
    expect(edit.status).toBe(404);
  });

  it('validates drafts', async () => {
    const member = await makeUser(t, org.realm);
    const guest = await makeUser(t, org.realm, { role: Role.GUEST });
    const channel = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const bad = async (auth: string, draft: object, msg: string) => {
      const res = await call('post', '/drafts', auth, { drafts: JSON.stringify([draft]) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg });
    };
    await bad(
      member.auth,
      { type: 'stream', to: [1, 2], topic: 't', content: 'x' },
      'Must specify exactly 1 channel ID for channel messages',
    );
    await bad(
      member.auth,
      { type: 'stream', to: [999999], topic: 't', content: 'x' },
      'Invalid channel ID',
    );
    await bad(
      guest.auth,
      { type: 'stream', to: [channel.id], topic: 't', content: 'x' },
      'Invalid channel ID',
    );
    await bad(
      member.auth,
      { type: 'private', to: [999999], topic: '', content: 'x' },
      'Invalid user ID 999999',
    );
    await bad(
      member.auth,
      { type: '', to: [], topic: '', content: '  ' },
      'Content must not be empty',
    );
    await bad(
      member.auth,
      { type: '', to: [], topic: '', content: 'x', timestamp: -5 },
      'Timestamp must not be negative.',
    );
    await bad(
      member.auth,
      { type: 'other', to: [], topic: '', content: 'x' },
      'Invalid drafts[0]["type"]',
    );
    expect(await t.db.draft.count({ where: { userId: member.user.id } })).toBe(0);
  });

  it('refuses every draft operation when synchronization is off', async () => {
    const member = await makeUser(t, org.realm);
    await api(t, org.host, 'patch', '/settings', member.auth, {
      enable_drafts_synchronization: false,
    });
    const res = await call('post', '/drafts', member.auth, {
      drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'x' }]),
    });
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'User has disabled synchronizing drafts.',
    });
  });
});
