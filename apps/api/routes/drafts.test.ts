import { makeChannel } from '../../../test/channel-factories';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { Role } from '../../../libs/domain/users/roles';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({});
  ({ t } = org);
});
afterAll(() => org.close());

describe('drafts', () => {
  it('creates, lists, edits and deletes drafts with drafts events', async () => {
    const member = await makeUser(t, org.realm);
    const other = await makeUser(t, org.realm);
    const channel = await makeChannel(t, org.realm, { subscribers: [member.user] });
    const mark = await outboxMark(t);
    const created = await org.as(member).post('/drafts', {
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

    const listed = await org.as(member).get('/drafts');
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

    const edited = await org.as(member).patch(`/drafts/${streamId}`, {
      draft: JSON.stringify({ type: 'stream', to: [channel.id], topic: 'plans', content: 'Bye' }),
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ result: 'success', msg: '' });
    const deleted = await org.as(member).delete(`/drafts/${streamId}`);
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
      await org.as(other).post('/drafts', {
        drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'mine' }]),
      })
    ).body.ids as number[];
    const res = await org.as(member).delete(`/drafts/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'Draft does not exist' });
    const edit = await org.as(member).patch('/drafts/999999', {
      draft: JSON.stringify({ type: '', to: [], topic: '', content: 'x' }),
    });
    expect(edit.status).toBe(404);
  });

  it('validates drafts', async () => {
    const member = await makeUser(t, org.realm);
    const guest = await makeUser(t, org.realm, { role: Role.GUEST });
    const channel = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const bad = async (who: TestUser, draft: object, msg: string) => {
      const res = await org.as(who).post('/drafts', { drafts: JSON.stringify([draft]) });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg });
    };
    await bad(
      member,
      { type: 'stream', to: [1, 2], topic: 't', content: 'x' },
      'Must specify exactly 1 channel ID for channel messages',
    );
    await bad(
      member,
      { type: 'stream', to: [999999], topic: 't', content: 'x' },
      'Invalid channel ID',
    );
    await bad(
      guest,
      { type: 'stream', to: [channel.id], topic: 't', content: 'x' },
      'Invalid channel ID',
    );
    await bad(
      member,
      { type: 'private', to: [999999], topic: '', content: 'x' },
      'Invalid user ID 999999',
    );
    await bad(member, { type: '', to: [], topic: '', content: '  ' }, 'Content must not be empty');
    await bad(
      member,
      { type: '', to: [], topic: '', content: 'x', timestamp: -5 },
      'Timestamp must not be negative.',
    );
    await bad(
      member,
      { type: 'other', to: [], topic: '', content: 'x' },
      'Invalid drafts[0]["type"]',
    );
    expect(await t.db.draft.count({ where: { userId: member.user.id } })).toBe(0);
  });

  it('refuses every draft operation when synchronization is off', async () => {
    const member = await makeUser(t, org.realm);
    await org.as(member).patch('/settings', {
      enable_drafts_synchronization: false,
    });
    const res = await org.as(member).post('/drafts', {
      drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'x' }]),
    });
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'User has disabled synchronizing drafts.',
    });
  });
});
