import { Jobs } from '../../../libs/jobs';
import { jobsWritten } from '../../../test/jobs';
import { Role } from '../../../libs/domain/users/roles';
import { makeBot, makeUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({});
  ({ t } = org);
});
afterAll(() => org.close());

async function emailJobsFor(userId: number) {
  const jobs = await jobsWritten(t, Jobs.sendEmail);
  return jobs.filter((j) => j.kind === 'deactivation' && j.userId === userId);
}

describe('GET /users/{user_id} and /users/{email}', () => {
  it('finds a user by ID or by email', async () => {
    const member = await makeUser(t, org.realm);
    const byId = await org.as(org.owner).get(`/users/${member.user.id}`);
    const byEmail = await org.as(org.owner).get(`/users/${encodeURIComponent(member.email)}`);
    expect(byId.status).toBe(200);
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.user).toEqual(byId.body.user);
    const missing = await org.as(org.owner).get('/users/nobody@example.com');
    expect(missing.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'No such user' });
  });
});

describe('PATCH /users/{user_id}', () => {
  it('lets an administrator change name and role, with realm_user events', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    const res = await org.as(admin).patch(`/users/${member.user.id}`, {
      full_name: 'Renamed Person',
      role: Role.MODERATOR,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row).toMatchObject({ fullName: 'Renamed Person', role: Role.MODERATOR });
    const events = (await eventsAfter(t, mark)).map((e) => e.event);
    expect(events).toContainEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: member.user.id, role: Role.MODERATOR },
    });
    expect(events).toContainEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: member.user.id, full_name: 'Renamed Person' },
    });
  });

  it('refuses members, guests and moderators', async () => {
    const member = await makeUser(t, org.realm);
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const res = await org.as(actor).patch(`/users/${member.user.id}`, {
        full_name: 'Nope',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Insufficient permission',
      });
    }
  });

  it('keeps the owner role for owners to grant and the last owner', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const member = await makeUser(t, org.realm);
    const grant = await org.as(admin).patch(`/users/${member.user.id}`, { role: Role.OWNER });
    expect(grant.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Must be an organization owner' });
    const lastOwner = await org.as(org.owner).patch(`/users/${org.owner.user.id}`, {
      role: Role.MEMBER,
    });
    expect(lastOwner.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'The owner permission cannot be removed from the only organization owner.',
    });
    const invalid = await org.as(admin).patch(`/users/${member.user.id}`, { role: 250 });
    expect(invalid.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid role' });
    const unknown = await org.as(admin).patch('/users/999999', { full_name: 'X' });
    expect(unknown.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'No such user' });
  });

  it('changes email only for an owner with can_change_user_emails', async () => {
    const member = await makeUser(t, org.realm);
    const refused = await org.as(org.owner).patch(`/users/${member.user.id}`, {
      new_email: 'changed@example.com',
    });
    expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
    await t.db.user.update({
      where: { id: org.owner.user.id },
      data: { canChangeUserEmails: true },
    });
    const mark = await outboxMark(t);
    const ok = await org.as(org.owner).patch(`/users/${member.user.id}`, {
      new_email: 'changed@example.com',
    });
    expect(ok.status).toBe(200);
    const row = await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } });
    expect(row.deliveryEmail).toBe('changed@example.com');
    expect((await eventsAfter(t, mark)).map((e) => e.event)).toContainEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: member.user.id, delivery_email: 'changed@example.com' },
    });
    await t.db.user.update({
      where: { id: org.owner.user.id },
      data: { canChangeUserEmails: false },
    });
  });

  it('sets custom profile field values', async () => {
    const field = await t.db.customProfileField.create({
      data: { realmId: org.realm.id, name: `Phone ${Date.now()}`, type: 1 },
    });
    const member = await makeUser(t, org.realm);
    const res = await org.as(org.owner).patch(`/users/${member.user.id}`, {
      profile_data: JSON.stringify([{ id: field.id, value: '+1 555' }]),
    });
    expect(res.status).toBe(200);
    const value = await t.db.customProfileFieldValue.findFirstOrThrow({
      where: { userId: member.user.id, fieldId: field.id },
    });
    expect(value.value).toBe('+1 555');
    const bad = await org.as(org.owner).patch(`/users/${member.user.id}`, {
      profile_data: JSON.stringify([{ id: 987654, value: 'x' }]),
    });
    expect(bad.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Field id 987654 not found.' });
  });
});

describe('DELETE /users/{user_id} and reactivation', () => {
  it('deactivates a user and their bots, tells the organization, and reactivates', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const member = await makeUser(t, org.realm);
    const bot = await makeBot(t, org.realm, member.user);
    const mark = await outboxMark(t);
    const res = await org.as(admin).delete(`/users/${member.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const rows = await t.db.user.findMany({ where: { id: { in: [member.user.id, bot.user.id] } } });
    expect(rows.every((r) => !r.isActive)).toBe(true);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: member.user.id, is_active: false } },
      { type: 'realm_user', op: 'update', person: { user_id: bot.user.id, is_active: false } },
      { type: 'realm_bot', op: 'update', bot: { user_id: bot.user.id, is_active: false } },
    ]);
    expect(events[0].users).toContain(admin.user.id);
    expect(events[0].users).not.toContain(member.user.id);
    expect(await emailJobsFor(member.user.id)).toHaveLength(0);

    const me = await org.as(member).get('/users/me');
    expect(me.body.code).toBe('USER_DEACTIVATED');
    const again = await org.as(admin).delete(`/users/${member.user.id}`);
    expect(again.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'User is already deactivated' });

    const back = await org.as(admin).post(`/users/${member.user.id}/reactivate`);
    expect(back.status).toBe(200);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } })).isActive).toBe(
      true,
    );
    const twice = await org.as(admin).post(`/users/${member.user.id}/reactivate`);
    expect(twice.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'User is already active' });
  });

  it('queues a notification email when a comment is given, even an empty one', async () => {
    const a = await makeUser(t, org.realm);
    const b = await makeUser(t, org.realm);
    await org.as(org.owner).delete(`/users/${a.user.id}`, {
      deactivation_notification_comment: 'Goodbye!',
    });
    await org.as(org.owner).delete(`/users/${b.user.id}`, {
      deactivation_notification_comment: '',
    });
    const [jobA] = await emailJobsFor(a.user.id);
    const [jobB] = await emailJobsFor(b.user.id);
    expect(jobA).toEqual({ kind: 'deactivation', userId: a.user.id, comment: 'Goodbye!' });
    expect(jobB).toEqual({ kind: 'deactivation', userId: b.user.id, comment: '' });
  });

  it('refuses non-administrators and the only owner', async () => {
    const target = await makeUser(t, org.realm);
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const res = await org.as(actor).delete(`/users/${target.user.id}`);
      expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
      const re = await org.as(actor).post(`/users/${target.user.id}/reactivate`);
      expect(re.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Insufficient permission' });
    }
    const only = await org.as(org.owner).delete(`/users/${org.owner.user.id}`);
    expect(only.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Cannot deactivate the only organization owner',
    });
    expect((await t.db.user.findUniqueOrThrow({ where: { id: target.user.id } })).isActive).toBe(
      true,
    );
  });
});

describe('DELETE /users/me', () => {
  it('deactivates the caller', async () => {
    const member = await makeUser(t, org.realm);
    const res = await org.as(member).delete('/users/me');
    expect(res.status).toBe(200);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: member.user.id } })).isActive).toBe(
      false,
    );
  });

  it('refuses the last owner', async () => {
    const res = await org.as(org.owner).delete('/users/me');
    expect(res.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Cannot deactivate the only organization owner',
    });
  });
});
