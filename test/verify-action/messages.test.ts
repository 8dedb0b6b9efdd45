import { organization, type Organization } from '../organization';
import { ActionVerifier, expectCovered } from '../verify-action';

type Org = Organization<'hamlet' | 'iago' | 'cordelia', 'Denmark' | 'Verona'>;
let org: Org;

beforeAll(async () => {
  org = await organization({
    events: true,
    members: { hamlet: 'member', iago: 'administrator', cordelia: 'member' },
    channels: { Denmark: ['hamlet', 'iago', 'owner'], Verona: ['hamlet', 'cordelia'] },
  });
});
afterAll(() => org.close());

const ok = async (res: Promise<{ status: number; body: { result: string } }>) => {
  const got = await res;
  if (got.status !== 200) throw new Error(`action failed: ${JSON.stringify(got.body)}`);
  return got.body as { result: string; id?: number };
};

jest.setTimeout(180_000);

describe('verify_action: messages', () => {
  it('send, edit, move, delete', async () => {
    const { hamlet, iago, cordelia } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    const sent = await v.step(() =>
      ok(
        org.as(iago).post('/messages', {
          type: 'stream',
          to: org.channels.Denmark.id,
          topic: 'plans',
          content: 'hello @**Hamlet**',
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(cordelia).post('/messages', {
          type: 'direct',
          to: JSON.stringify([hamlet.user.id]),
          content: 'hi',
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(cordelia).post('/messages', {
          type: 'direct',
          to: JSON.stringify([hamlet.user.id, iago.user.id]),
          content: 'group',
        }),
      ),
    );
    await v.step(() =>
      ok(org.as(iago).patch(`/messages/${sent.id}`, { content: 'edited, no mention' })),
    );
    await v.step(() =>
      ok(
        org
          .as(iago)
          .patch(`/messages/${sent.id}`, { topic: 'moved', propagate_mode: 'change_all' }),
      ),
    );
    await v.step(() =>
      ok(org.as(iago).post(`/messages/${sent.id}/reactions`, { emoji_name: 'octopus' })),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).post('/messages/flags', {
          messages: JSON.stringify([sent.id]),
          op: 'add',
          flag: 'starred',
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).post('/messages/flags', {
          messages: JSON.stringify([sent.id]),
          op: 'add',
          flag: 'read',
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).post('/messages/flags', {
          messages: JSON.stringify([sent.id]),
          op: 'remove',
          flag: 'read',
        }),
      ),
    );
    await v.step(() =>
      ok(org.as(iago).delete(`/messages/${sent.id}/reactions`, { emoji_name: 'octopus' })),
    );
    await v.step(
      () =>
        ok(org.as(cordelia).post('/typing', { op: 'start', to: JSON.stringify([hamlet.user.id]) })),
      { unrecorded: [hamlet.user.id] },
    );
    await v.step(
      () =>
        ok(org.as(cordelia).post('/typing', { op: 'stop', to: JSON.stringify([hamlet.user.id]) })),
      { unrecorded: [hamlet.user.id] },
    );
    await v.step(() => ok(org.as(hamlet).post('/mark_all_as_read')));
    await v.step(() => ok(org.as(iago).delete(`/messages/${sent.id}`)));
    expectCovered(v, [
      'message',
      'update_message',
      'reaction:add',
      'reaction:remove',
      'update_message_flags:add',
      'update_message_flags:remove',
      'typing:start',
      'typing:stop',
      'delete_message',
      'stream:update',
    ]);
  });
});
