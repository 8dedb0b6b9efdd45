import bcrypt from 'bcrypt';
import { makeRealm, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { eventsAfter, outboxMark, type RecordedEvent } from '../../../test/outbox';
import { api } from '../../../test/requests';
import { Role } from '../../../libs/domain/users/roles';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
});
afterAll(() => org.close());

const patch = (
  who: TestUser,
  form: Record<string, string | number | boolean>,
  path = '/settings',
) => org.as(who).patch(path, form);

describe('PATCH /settings', () => {
  it('changes settings and emits one user_settings event per changed property', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    const res = await patch(member, {
      twenty_four_hour_time: true,
      color_scheme: 2,
      emojiset: 'google-blob',
      web_home_view: 'recent_topics',
      enable_sounds: true, // unchanged: no event
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row).toMatchObject({
      twentyFourHourTime: true,
      colorScheme: 2,
      emojiset: 'google-blob',
      webHomeView: 'recent_topics',
    });
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'user_settings', op: 'update', property: 'twenty_four_hour_time', value: true },
      { type: 'user_settings', op: 'update', property: 'color_scheme', value: 2 },
      { type: 'user_settings', op: 'update', property: 'web_home_view', value: 'recent_topics' },
      { type: 'user_settings', op: 'update', property: 'emojiset', value: 'google-blob' },
    ]);
    expect(events.every((e) => e.users.length === 1 && e.users[0] === member.user.id)).toBe(true);
  });

  it('accepts the deprecated /settings/display and /settings/notifications aliases', async () => {
    const member = await makeUser(t, org.realm);
    expect((await patch(member, { left_side_userlist: true }, '/settings/display')).status).toBe(
      200,
    );
    expect(
      (await patch(member, { enable_digest_emails: false }, '/settings/notifications')).status,
    ).toBe(200);
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row.leftSideUserlist).toBe(true);
    expect(row.enableDigestEmails).toBe(false);
  });

  it('adds language_name for default_language', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    expect((await patch(member, { default_language: 'de' })).status).toBe(200);
    const [event] = await eventsAfter(t, mark);
    expect(event.event).toEqual({
      type: 'user_settings',
      op: 'update',
      property: 'default_language',
      value: 'de',
      language_name: 'German',
    });
  });

  it('validates the time zone and tells the organization about a change', async () => {
    const member = await makeUser(t, org.realm);
    const bad = await patch(member, { timezone: 'Mars/Olympus' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'timezone is not a recognized time zone',
    });
    const mark = await outboxMark(t);
    expect((await patch(member, { timezone: 'Europe/Berlin' })).status).toBe(200);
    const events = (await eventsAfter(t, mark)).map((e) => e.event);
    expect(events).toContainEqual({
      type: 'user_settings',
      op: 'update',
      property: 'timezone',
      value: 'Europe/Berlin',
    });
    expect(events).toContainEqual({
      type: 'realm_user',
      op: 'update',
      person: { email: member.email, user_id: member.user.id, timezone: 'Europe/Berlin' },
    });
  });

  it('refuses values outside the allowed sets and changes nothing', async () => {
    const member = await makeUser(t, org.realm);
    for (const [name, value] of [
      ['emojiset', 'apple'],
      ['color_scheme', 4],
      ['web_home_view', 'feed'],
      ['default_language', 'xx'],
      ['demote_inactive_streams', 0],
      ['web_animate_image_previews', 'sometimes'],
    ] as const) {
      const res = await patch(member, { [name]: value, twenty_four_hour_time: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: `Invalid ${name}` });
    }
    const notBool = await patch(member, { enable_sounds: 'maybe' });
    expect(notBool.body.msg).toBe('enable_sounds is not a boolean');
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row.twentyFourHourTime).toBe(false);
  });

  it('changes the full name with a realm_user event', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    expect((await patch(member, { full_name: 'New Name' })).status).toBe(200);
    const events = await eventsAfter(t, mark);
    expect(events).toHaveLength(1);
    expect(events[0].event).toEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: member.user.id, full_name: 'New Name' },
    });
    expect(events[0].users).toContain(org.owner.user.id);
    const tooLong = await patch(member, { full_name: 'x'.repeat(101) });
    expect(tooLong.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Name too long!' });
  });

  it('refuses name changes when the organization disabled them, except for administrators', async () => {
    const realm = await makeRealm(t);
    await t.db.realm.update({ where: { id: realm.realm.id }, data: { nameChangesDisabled: true } });
    const member = await makeUser(t, realm.realm);
    const admin = await makeUser(t, realm.realm, { role: Role.ADMINISTRATOR });
    const refused = await api(t, realm.host, 'patch', '/settings', member.auth, {
      full_name: 'X Y',
    });
    expect(refused.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Name changes are disabled in this organization.',
    });
    const allowed = await api(t, realm.host, 'patch', '/settings', admin.auth, {
      full_name: 'X Y',
    });
    expect(allowed.status).toBe(200);
  });

  it('changes the password only with the right old password', async () => {
    const member = await makeUser(t, org.realm, { password: 'old-secret-1' });
    const missing = await patch(member, { new_password: 'new-secret-2' });
    expect(missing.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Wrong password!' });
    const wrong = await patch(member, { old_password: 'nope', new_password: 'new-secret-2' });
    expect(wrong.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Wrong password!' });
    const weak = await patch(member, { old_password: 'old-secret-1', new_password: 'x' });
    expect(weak.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'New password is too weak!' });
    const ok = await patch(member, {
      old_password: 'old-secret-1',
      new_password: 'new-secret-2',
    });
    expect(ok.status).toBe(200);
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(await bcrypt.compare('new-secret-2', row.passwordHash!)).toBe(true);
  });

  it('starts an email change confirmation without changing the address yet', async () => {
    const member = await makeUser(t, org.realm);
    const res = await patch(member, { email: 'New.Address@example.com' });
    expect(res.status).toBe(200);
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row.deliveryEmail).toBe(member.email);
    const change = await t.db.emailChangeStatus.findFirstOrThrow({
      where: { userId: member.user.id },
    });
    expect(change).toMatchObject({
      oldEmail: member.email,
      newEmail: 'new.address@example.com',
      status: 0,
    });
    expect(change.confirmationKey).toMatch(/^[0-9a-f]{32}$/);

    const taken = await patch(member, { email: org.owner.email });
    expect(taken.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: `Email '${org.owner.email}' already in use`,
    });
    const invalid = await patch(member, { email: 'not-an-email' });
    expect(invalid.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: "Invalid email 'not-an-email'",
    });
  });

  it('refuses email changes when the organization disabled them', async () => {
    const realm = await makeRealm(t);
    await t.db.realm.update({
      where: { id: realm.realm.id },
      data: { emailChangesDisabled: true },
    });
    const member = await makeUser(t, realm.realm);
    const res = await api(t, realm.host, 'patch', '/settings', member.auth, {
      email: 'a@example.com',
    });
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Email address changes are disabled in this organization.',
    });
  });

  it('deletes all drafts when drafts synchronization is turned off', async () => {
    const member = await makeUser(t, org.realm);
    await t.db.draft.create({
      data: { userId: member.user.id, topic: '', content: 'hello', lastEditTime: new Date() },
    });
    expect((await patch(member, { enable_drafts_synchronization: false })).status).toBe(200);
    expect(await t.db.draft.count({ where: { userId: member.user.id } })).toBe(0);
  });

  it('tells users who gain or lose sight of the address when email_address_visibility changes', async () => {
    const realm = await makeRealm(t);
    const member = await makeUser(t, realm.realm);
    const other = await makeUser(t, realm.realm);
    const admin = await makeUser(t, realm.realm, { role: Role.ADMINISTRATOR });
    const mark = await outboxMark(t);
    const res = await api(t, realm.host, 'patch', '/settings', member.auth, {
      email_address_visibility: 3,
    });
    expect(res.status).toBe(200);
    const events = await eventsAfter(t, mark);
    const lost = events.find((e) => e.event.type === 'realm_user');
    expect(lost!.event).toEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: member.user.id, delivery_email: null },
    });
    expect(lost!.users).toContain(other.user.id);
    expect(lost!.users).not.toContain(admin.user.id);
    expect(events.map((e) => e.event)).toContainEqual({
      type: 'user_settings',
      op: 'update',
      property: 'email_address_visibility',
      value: 3,
    });
  });

  it('reports unsupported parameters', async () => {
    const member = await makeUser(t, org.realm);
    const res = await patch(member, { dense_mode: true });
    expect(res.body).toEqual({
      result: 'success',
      msg: '',
      ignored_parameters_unsupported: ['dense_mode'],
    });
  });
});

describe('PATCH /settings presence_enabled', () => {
  const presence = (who: TestUser, form: Record<string, string | number | boolean>) =>
    org.as(who).post('/users/me/presence', form);
  const presenceEvent = (events: RecordedEvent[], userId: number) =>
    events.find((e) => e.event.type === 'presence' && e.event.user_id === userId);

  it('tells everyone at once: offline when turned off, active when turned on', async () => {
    const invisible = await makeUser(t, org.realm);
    // Presence without an active time falls back to date_joined, as in Zulip: not a new account.
    invisible.user = await t.db.user.update({
      where: { id: invisible.user.id },
      data: { dateJoined: new Date(Date.now() - 30 * 86_400_000) },
    });
    const viewer = await makeUser(t, org.realm);
    await presence(invisible, { status: 'active' });
    const before = await presence(viewer, { status: 'active', last_update_id: -1 });
    const lastUpdateId = before.body.presence_last_update_id as number;

    const mark = await outboxMark(t);
    const off = await patch(invisible, { presence_enabled: false });
    expect(off.status).toBe(200);
    const offEvents = await eventsAfter(t, mark);
    const gone = presenceEvent(offEvents, invisible.user.id);
    expect(gone?.event).toMatchObject({
      type: 'presence',
      email: invisible.email,
      server_timestamp: expect.any(Number),
      presence: { website: { client: 'website', status: 'idle', pushable: false } },
    });
    expect(gone?.users).toEqual(expect.arrayContaining([viewer.user.id, org.owner.user.id]));
    // Old enough to read as offline (140 s threshold) to every client.
    const website = (gone?.event.presence as { website: { timestamp: number } }).website;
    expect(Date.now() / 1000 - website.timestamp).toBeGreaterThan(140);

    // A client fetching only changed rows sees the offline state too.
    const changed = await presence(viewer, { status: 'active', last_update_id: lastUpdateId });
    const row = changed.body.presences[String(invisible.user.id)];
    expect(Date.now() / 1000 - row.idle_timestamp).toBeGreaterThan(140);

    const mark2 = await outboxMark(t);
    const on = await patch(invisible, { presence_enabled: true });
    expect(on.status).toBe(200);
    const back = presenceEvent(await eventsAfter(t, mark2), invisible.user.id);
    expect(back?.event).toMatchObject({
      presence: { website: { client: 'website', status: 'active', pushable: false } },
    });
    const active = (back?.event.presence as { website: { timestamp: number } }).website;
    expect(Math.abs(Date.now() / 1000 - active.timestamp)).toBeLessThan(10);
    expect(back?.users).toContain(viewer.user.id);
  });

  it('sends no presence event when the value does not change', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    expect((await patch(member, { presence_enabled: true })).status).toBe(200);
    expect(presenceEvent(await eventsAfter(t, mark), member.user.id)).toBeUndefined();
  });
});
