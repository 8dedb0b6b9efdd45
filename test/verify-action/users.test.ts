import { organization, type Organization } from '../organization';
import { ActionVerifier, expectCovered, ok } from '../verify-action';

type Org = Organization<'hamlet' | 'iago' | 'cordelia' | 'polonius', 'Denmark'>;
let org: Org;

beforeAll(async () => {
  org = await organization({
    events: true,
    members: { hamlet: 'member', iago: 'administrator', cordelia: 'member', polonius: 'member' },
    channels: { Denmark: ['hamlet', 'iago', 'cordelia', 'owner'] },
  });
});
afterAll(() => org.close());

jest.setTimeout(300_000);

describe('verify_action: users and their settings', () => {
  it('settings, status, alert words, muted users', async () => {
    const { hamlet, iago, cordelia } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() => ok(org.as(hamlet).patch('/settings', { twenty_four_hour_time: true })));
    await v.step(() => ok(org.as(hamlet).patch('/settings', { enable_sounds: false })));
    await v.step(() => ok(org.as(hamlet).patch('/settings', { default_language: 'de' })));
    await v.step(() => ok(org.as(hamlet).patch('/settings', { timezone: 'Europe/Copenhagen' })));
    await v.step(() => ok(org.as(hamlet).patch('/settings', { full_name: 'Prince Hamlet' })));
    await v.step(() =>
      ok(org.as(hamlet).patch('/settings', { enable_drafts_synchronization: false })),
    );
    await v.step(() =>
      ok(
        org.as(cordelia).post('/users/me/status', {
          status_text: 'in a meeting',
          emoji_name: 'calendar',
          away: true,
        }),
      ),
    );
    await v.step(() =>
      ok(org.as(cordelia).post('/users/me/status', { status_text: '', emoji_name: '' })),
    );
    await v.step(() =>
      ok(
        org
          .as(hamlet)
          .post('/users/me/alert_words', { alert_words: JSON.stringify(['castle', 'ghost']) }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).delete('/users/me/alert_words', { alert_words: JSON.stringify(['ghost']) }),
      ),
    );
    await v.step(() => ok(org.as(hamlet).post(`/users/me/muted_users/${cordelia.user.id}`)));
    await v.step(() => ok(org.as(hamlet).delete(`/users/me/muted_users/${cordelia.user.id}`)));
    await v.step(() => ok(org.as(cordelia).post('/users/me/presence', { status: 'active' })));
    expectCovered(v, [
      'user_settings:update',
      'update_display_settings',
      'update_global_notifications',
      'realm_user:update:full_name',
      'realm_user:update:timezone',
      'user_status',
      'alert_words',
      'muted_users',
      'presence',
    ]);
  });

  it('email visibility', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() => ok(org.as(hamlet).patch('/settings', { email_address_visibility: 4 })));
    await v.step(() => ok(org.as(hamlet).patch('/settings', { email_address_visibility: 1 })));
    expectCovered(v, ['realm_user:update:delivery_email', 'realm_user:update:avatar_url']);
  });

  it('roles, deactivation, reactivation', async () => {
    const { hamlet, iago, polonius } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() => ok(org.as(iago).patch(`/users/${hamlet.user.id}`, { role: 300 })));
    await v.step(() => ok(org.as(iago).patch(`/users/${hamlet.user.id}`, { role: 400 })));
    await v.step(() =>
      ok(org.as(iago).patch(`/users/${polonius.user.id}`, { full_name: 'Lord Polonius' })),
    );
    await v.step(() => ok(org.as(iago).delete(`/users/${polonius.user.id}`)));
    await v.step(() => ok(org.as(iago).post(`/users/${polonius.user.id}/reactivate`)));
    expectCovered(v, [
      'realm_user:update:role',
      'realm_user:update:is_active',
      'user_group:add_members',
      'user_group:remove_members',
    ]);
  });

  it('bots', async () => {
    const { hamlet, iago, cordelia } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago, cordelia]);
    const created = await v.step(() =>
      ok(org.as(hamlet).post('/bots', { full_name: 'Yorick', short_name: 'yorick' })),
    );
    const botId = created.user_id as number;
    await v.step(() => ok(org.as(hamlet).patch(`/bots/${botId}`, { full_name: 'Poor Yorick' })));
    await v.step(() => ok(org.as(hamlet).post(`/bots/${botId}/api_key/regenerate`)));
    // From one member to another, renamed at once: the former owner loses the bot from
    // realm_bots, the new one gains it, the administrator sees both changes.
    await v.step(() =>
      ok(
        org
          .as(iago)
          .patch(`/bots/${botId}`, { bot_owner_id: cordelia.user.id, full_name: 'Yorick' }),
      ),
    );
    // To an administrator, who lists every bot already.
    await v.step(() => ok(org.as(iago).patch(`/bots/${botId}`, { bot_owner_id: iago.user.id })));
    await v.step(() => ok(org.as(iago).delete(`/bots/${botId}`)));
    await v.step(() => ok(org.as(iago).post(`/users/${botId}/reactivate`)));
    expectCovered(v, [
      'realm_user:add',
      'realm_bot:add',
      'realm_bot:update:full_name',
      'realm_bot:update:api_key',
      'realm_bot:update:owner_id',
      'realm_user:update:bot_owner_id',
      'realm_bot:delete',
      'realm_bot:update:is_active',
    ]);
  });

  it('bots deactivated with their owner', async () => {
    const { hamlet, iago, polonius } = org.users;
    await ok(org.as(polonius).post('/bots', { full_name: 'Reynaldo', short_name: 'reynaldo' }));
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() => ok(org.as(iago).delete(`/users/${polonius.user.id}`)));
    await v.step(() => ok(org.as(iago).post(`/users/${polonius.user.id}/reactivate`)));
    expectCovered(v, ['realm_bot:update:is_active', 'realm_user:update:is_active']);
  });

  it('an outgoing webhook bot and its service', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    const created = await v.step(() =>
      ok(
        org.as(hamlet).post('/bots', {
          full_name: 'Herald',
          short_name: 'herald',
          bot_type: 3,
          payload_url: JSON.stringify('https://hooks.example/herald'),
          interface_type: 1,
        }),
      ),
    );
    await v.step(() =>
      ok(
        org.as(hamlet).patch(`/bots/${created.user_id as number}`, {
          service_payload_url: JSON.stringify('https://hooks.example/herald/v2'),
        }),
      ),
    );
    expectCovered(v, ['realm_bot:update:services']);
  });

  it('an email changed by an owner', async () => {
    const { hamlet, iago, polonius } = org.users;
    await org.t.db.user.update({
      where: { id: org.owner.user.id },
      data: { canChangeUserEmails: true },
    });
    const v = new ActionVerifier(org, [hamlet, iago]);
    await v.step(() =>
      ok(
        org
          .as(org.owner)
          .patch(`/users/${polonius.user.id}`, { new_email: 'lord.polonius@castle.example' }),
      ),
    );
    expectCovered(v, ['realm_user:update:new_email']);
  });

  it('custom profile fields', async () => {
    const { hamlet, iago } = org.users;
    const v = new ActionVerifier(org, [hamlet, iago]);
    const field = await v.step(() =>
      ok(
        org
          .as(iago)
          .post('/realm/profile_fields', { name: 'Castle', hint: 'Where', field_type: 1 }),
      ),
    );
    const fieldId = field.id as number;
    await v.step(() =>
      ok(
        org.as(hamlet).patch('/users/me/profile_data', {
          data: JSON.stringify([{ id: fieldId, value: 'Elsinore' }]),
        }),
      ),
    );
    await v.step(() =>
      ok(org.as(hamlet).delete('/users/me/profile_data', { data: JSON.stringify([fieldId]) })),
    );
    await v.step(() =>
      ok(org.as(iago).patch(`/realm/profile_fields/${fieldId}`, { name: 'Home' })),
    );
    await v.step(() => ok(org.as(iago).delete(`/realm/profile_fields/${fieldId}`)));
    expectCovered(v, ['custom_profile_fields', 'realm_user:update:custom_profile_field']);
  });
});
