import { organization, type Organization } from '../organization';
import { ActionVerifier, expectCovered, ok } from '../verify-action';

type Org = Organization<'hamlet' | 'iago' | 'cordelia', 'Denmark'>;
let org: Org;

beforeAll(async () => {
  org = await organization({
    events: true,
    members: { hamlet: 'member', iago: 'administrator', cordelia: 'member' },
    channels: { Denmark: ['hamlet', 'iago', 'owner'] },
  });
});
afterAll(() => org.close());

jest.setTimeout(300_000);

describe('verify_action: the organization', () => {
  it('settings and user defaults', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() => ok(org.as(org.owner).patch('/realm', { name: 'Elsinore' })));
    await v.step(() => ok(org.as(org.owner).patch('/realm', { description: 'A **castle**' })));
    await v.step(() => ok(org.as(org.owner).patch('/realm', { waiting_period_threshold: 3 })));
    await v.step(() =>
      ok(
        org.as(org.owner).patch('/realm', {
          can_create_public_channel_group: JSON.stringify({
            new: org.systemGroups['role:administrators'],
          }),
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(org.owner).patch('/realm', {
          can_invite_users_group: JSON.stringify({
            new: { direct_members: [hamlet.user.id], direct_subgroups: [] },
          }),
        }),
      ),
    );
    await v.step(() =>
      ok(org.as(iago).patch('/realm/user_settings_defaults', { twenty_four_hour_time: true })),
    );
    expectCovered(v, ['realm:update', 'realm_user_settings_defaults:update']);
  });

  it('domains, linkifiers, playgrounds, invitations', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() =>
      ok(
        org
          .as(org.owner)
          .post('/realm/domains', { domain: 'castle.example', allow_subdomains: false }),
      ),
    );
    await v.step(() =>
      ok(org.as(org.owner).patch('/realm/domains/castle.example', { allow_subdomains: true })),
    );
    await v.step(() => ok(org.as(org.owner).delete('/realm/domains/castle.example')));
    const linkifier = await v.step(() =>
      ok(
        org.as(iago).post('/realm/filters', {
          pattern: '#(?P<id>[0-9]+)',
          url_template: 'https://tracker.example/{id}',
        }),
      ),
    );
    await v.step(() => ok(org.as(iago).delete(`/realm/filters/${linkifier.id as number}`)));
    const playground = await v.step(() =>
      ok(
        org.as(iago).post('/realm/playgrounds', {
          name: 'Python',
          pygments_language: 'Python',
          url_template: 'https://python.example/?code={code}',
        }),
      ),
    );
    await v.step(() => ok(org.as(iago).delete(`/realm/playgrounds/${playground.id as number}`)));
    await v.step(() =>
      ok(
        org
          .as(iago)
          .post('/invites', { invitee_emails: 'laertes@castle.example', stream_ids: '[]' }),
      ),
    );
    expectCovered(v, [
      'realm_domains:add',
      'realm_domains:change',
      'realm_domains:remove',
      'realm_linkifiers',
      'realm_playgrounds',
      'invites_changed',
    ]);
  });

  it('user groups', async () => {
    const { hamlet, iago, cordelia } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() =>
      ok(
        org.as(iago).post('/user_groups/create', {
          name: 'players',
          description: 'The players',
          members: JSON.stringify([hamlet.user.id]),
        }),
      ),
    );
    const group = await org.t.db.userGroup.findFirstOrThrow({ where: { name: 'players' } });
    await v.step(() =>
      ok(org.as(iago).patch(`/user_groups/${group.id}`, { description: 'Actors' })),
    );
    await v.step(() =>
      ok(
        org
          .as(iago)
          .post(`/user_groups/${group.id}/members`, { add: JSON.stringify([cordelia.user.id]) }),
      ),
    );
    await v.step(() =>
      ok(
        org
          .as(iago)
          .post(`/user_groups/${group.id}/members`, { delete: JSON.stringify([hamlet.user.id]) }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(iago).post(`/user_groups/${group.id}/subgroups`, {
          add: JSON.stringify([org.systemGroups['role:moderators']]),
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(iago).post(`/user_groups/${group.id}/subgroups`, {
          delete: JSON.stringify([org.systemGroups['role:moderators']]),
        }),
      ),
    );
    await v.step(() => ok(org.as(iago).post(`/user_groups/${group.id}/deactivate`)));
    expectCovered(v, [
      'user_group:add',
      'user_group:update',
      'user_group:add_members',
      'user_group:remove_members',
      'user_group:add_subgroups',
      'user_group:remove_subgroups',
      'user_group:remove',
    ]);
  });

  it('drafts and scheduled messages', async () => {
    const { hamlet } = org.users;
    const v = new ActionVerifier(org, [hamlet]);
    const drafts = await v.step(() =>
      ok(
        org.as(hamlet).post('/drafts', {
          drafts: JSON.stringify([
            {
              type: 'stream',
              to: [org.channels.Denmark.id],
              topic: 'plans',
              content: 'draft',
              timestamp: 1700000000,
            },
          ]),
        }),
      ),
    );
    const draftId = (drafts.ids as number[])[0];
    await v.step(() =>
      ok(
        org.as(hamlet).patch(`/drafts/${draftId}`, {
          draft: JSON.stringify({
            type: 'stream',
            to: [org.channels.Denmark.id],
            topic: 'plans',
            content: 'edited',
            timestamp: 1700000100,
          }),
        }),
      ),
    );
    await v.step(() => ok(org.as(hamlet).delete(`/drafts/${draftId}`)));
    const later = Math.floor(Date.now() / 1000) + 3600;
    const scheduled = await v.step(() =>
      ok(
        org.as(hamlet).post('/scheduled_messages', {
          type: 'stream',
          to: org.channels.Denmark.id,
          topic: 'plans',
          content: 'later',
          scheduled_delivery_timestamp: later,
        }),
      ),
    );
    const scheduledId = scheduled.scheduled_message_id as number;
    await v.step(() =>
      ok(org.as(hamlet).patch(`/scheduled_messages/${scheduledId}`, { content: 'much later' })),
    );
    await v.step(() => ok(org.as(hamlet).delete(`/scheduled_messages/${scheduledId}`)));
    expectCovered(v, [
      'drafts:add',
      'drafts:update',
      'drafts:remove',
      'scheduled_messages:add',
      'scheduled_messages:update',
      'scheduled_messages:remove',
    ]);
  });
});
