import { organization, type Organization } from '../organization';
import { ActionVerifier, expectCovered, ok } from '../verify-action';

type Org = Organization<'hamlet' | 'iago' | 'cordelia', 'Denmark' | 'Verona'>;
let org: Org;

beforeAll(async () => {
  org = await organization({
    events: true,
    members: { hamlet: 'member', iago: 'administrator', cordelia: 'member' },
    channels: { Denmark: ['hamlet', 'iago', 'owner'], Verona: ['cordelia'] },
  });
});
afterAll(() => org.close());

jest.setTimeout(300_000);

describe('verify_action: channels and subscriptions', () => {
  it('create, subscribe, properties, update, default, archive', async () => {
    const { hamlet, iago, cordelia } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() =>
      ok(
        org.as(iago).post('/users/me/subscriptions', {
          subscriptions: JSON.stringify([{ name: 'Elsinore' }]),
        }),
      ),
    );
    const elsinore = await org.t.db.stream.findFirstOrThrow({ where: { name: 'Elsinore' } });
    await v.step(() =>
      ok(
        org.as(iago).post('/users/me/subscriptions', {
          subscriptions: JSON.stringify([{ name: 'Elsinore' }]),
          principals: JSON.stringify([hamlet.user.id]),
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).post('/users/me/subscriptions/properties', {
          subscription_data: JSON.stringify([
            { stream_id: elsinore.id, property: 'color', value: '#ff0000' },
            { stream_id: elsinore.id, property: 'is_muted', value: true },
            { stream_id: elsinore.id, property: 'desktop_notifications', value: true },
            { stream_id: elsinore.id, property: 'pin_to_top', value: true },
          ]),
        }),
      ),
    );
    await v.step(() =>
      ok(org.as(iago).patch(`/streams/${elsinore.id}`, { description: 'The **castle**' })),
    );
    await v.step(() => ok(org.as(iago).patch(`/streams/${elsinore.id}`, { new_name: 'Castle' })));
    await v.step(() => ok(org.as(iago).post('/default_streams', { stream_id: elsinore.id })));
    await v.step(() => ok(org.as(iago).delete('/default_streams', { stream_id: elsinore.id })));
    await v.step(() =>
      ok(
        org
          .as(hamlet)
          .delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['Castle']) }),
      ),
    );
    await v.step(() =>
      ok(
        org
          .as(hamlet)
          .post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'Castle' }]) }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(iago).patch(`/streams/${elsinore.id}`, {
          is_private: true,
          history_public_to_subscribers: true,
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(iago).delete('/users/me/subscriptions', {
          subscriptions: JSON.stringify(['Castle']),
          principals: JSON.stringify([hamlet.user.id]),
        }),
      ),
    );
    await v.step(() => ok(org.as(iago).patch(`/streams/${elsinore.id}`, { is_private: false })));
    await v.step(() => ok(org.as(iago).delete(`/streams/${elsinore.id}`)));
    await v.step(() =>
      ok(
        org.as(cordelia).post('/users/me/subscriptions', {
          subscriptions: JSON.stringify([{ name: 'Denmark' }]),
        }),
      ),
    );
    expectCovered(v, [
      'stream:create',
      'stream:update',
      'stream:delete',
      'subscription:add',
      'subscription:remove',
      'subscription:update',
      'subscription:peer_add',
      'subscription:peer_remove',
      'default_streams',
    ]);
  });

  it('topics: visibility and the legacy muted topics', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    const denmark = org.channels.Denmark.id;
    await v.step(() =>
      ok(
        org
          .as(hamlet)
          .post('/user_topics', { stream_id: denmark, topic: 'plans', visibility_policy: 1 }),
      ),
    );
    await v.step(() =>
      ok(
        org
          .as(hamlet)
          .post('/user_topics', { stream_id: denmark, topic: 'plans', visibility_policy: 3 }),
      ),
    );
    await v.step(() =>
      ok(
        org
          .as(hamlet)
          .post('/user_topics', { stream_id: denmark, topic: 'plans', visibility_policy: 0 }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).patch('/users/me/subscriptions/muted_topics', {
          stream_id: denmark,
          topic: 'other',
          op: 'add',
        }),
      ),
    );
    expectCovered(v, ['user_topic', 'muted_topics']);
  });
});
