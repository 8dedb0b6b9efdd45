import request from 'supertest';
import type { Stream } from '../../../generated/prisma/client';
import { Role } from '../../../libs/domain/users/roles';
import { makeBot, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postDirect } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import type { Organization } from '../../../test/organization';
import { guestAccessOrganization } from '../../../test/guest-access-organization';

/**
 * `can_access_all_users_group` = role:members: the guest shares #shared with Alice, and nothing
 * with Bob, so the guest may access Alice but not Bob.
 */
let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;
let shared: Stream;
let groupIds: Record<string, number>;

beforeAll(async () => {
  org = await guestAccessOrganization();
  ({ t, systemGroups: groupIds } = org);
  ({ alice, bob, guest } = org.users);
  ({ shared } = org.channels);
});
afterAll(() => org.close());

const setAccessGroup = (who: TestUser, value: unknown, old?: unknown) =>
  org.as(who).patch('/realm', {
    can_access_all_users_group: JSON.stringify(
      old === undefined ? { new: value } : { new: value, old },
    ),
  });

/** Checks one event (as the outbox holds it) against the documented `GET /events` events. */
const expectDocumentedEvent = (event: object) =>
  expectOpenApiResponse('/events', 'get', {
    result: 'success',
    msg: '',
    queue_id: 'q',
    events: [{ id: 0, ...event }],
  });

const unknownUser = (userId: number) => ({
  email: `user${userId}@${org.host}`,
  user_id: userId,
  avatar_version: 1,
  is_admin: false,
  is_owner: false,
  is_guest: false,
  role: Role.MEMBER,
  is_bot: false,
  full_name: 'Unknown user',
  timezone: '',
  is_active: true,
  date_joined: '1970-01-01T00:00:00+00:00',
  delivery_email: null,
  avatar_url: '/static/images/unknown-user-avatar.png',
  profile_data: {},
});

describe('PATCH /realm can_access_all_users_group', () => {
  it('accepts only the role:everyone and role:members system groups', async () => {
    const named = await org.as(org.owner).post('/user_groups/create', {
      name: 'Helpers',
      description: '',
      members: JSON.stringify([alice.user.id]),
    });
    expect(named.status).toBe(200);
    const refusals: [unknown, string][] = [
      [groupIds['role:administrators'], "setting cannot be set to 'role:administrators' group."],
      [groupIds['role:internet'], "setting cannot be set to 'role:internet' group."],
      [
        { direct_members: [], direct_subgroups: [] },
        "setting cannot be set to 'role:nobody' group.",
      ],
      [named.body.group_id, 'must be a system user group.'],
      [{ direct_members: [alice.user.id], direct_subgroups: [] }, 'must be a system user group.'],
    ];
    for (const [value, msg] of refusals) {
      const res = await setAccessGroup(org.owner, value);
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: `'can_access_all_users_group' ${msg}`,
      });
    }
    expect((await setAccessGroup(org.owner, 987654)).body.msg).toBe('Invalid user group');
    const stale = await setAccessGroup(
      org.owner,
      groupIds['role:members'],
      groupIds['role:members'],
    );
    expect(stale.body.msg).toBe("'old' value does not match the expected value.");
    const member = await setAccessGroup(alice, groupIds['role:members']);
    expect(member.body.msg).toBe('Must be an organization administrator');
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(realm.canAccessAllUsersGroupId).toBe(groupIds['role:everyone']);
  });

  it('changes the setting with a realm update_dict event and shows it at registration', async () => {
    const mark = await outboxMark(t);
    const res = await setAccessGroup(
      org.owner,
      { direct_members: [], direct_subgroups: [groupIds['role:members']] },
      groupIds['role:everyone'],
    );
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      {
        type: 'realm',
        op: 'update_dict',
        property: 'default',
        data: { can_access_all_users_group: groupIds['role:members'] },
      },
    ]);
    expect(events[0].users).toContain(guest.user.id);
    const again = await outboxMark(t);
    expect((await setAccessGroup(org.owner, groupIds['role:members'])).status).toBe(200);
    expect(await eventsAfter(t, again)).toEqual([]);
    const state = await org.register(guest, {
      fetch_event_types: JSON.stringify(['realm']),
    });
    expect(state.realm_can_access_all_users_group).toBe(groupIds['role:members']);
  });
});

describe('a guest restricted to users they share a conversation with', () => {
  it('lists inaccessible users as "Unknown user" placeholders in GET /users', async () => {
    const bot = await makeBot(t, org.realm, bob.user);
    const res = await org.as(guest).get('/users');
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users', 'get', res.body);
    const byId = new Map((res.body.members as { user_id: number }[]).map((u) => [u.user_id, u]));
    expect(byId.get(bob.user.id)).toEqual(unknownUser(bob.user.id));
    expect(byId.get(org.owner.user.id)).toEqual(unknownUser(org.owner.user.id));
    expect(byId.get(alice.user.id)).toMatchObject({ full_name: 'Alice', email: alice.email });
    expect(byId.get(guest.user.id)).toMatchObject({ full_name: 'Gus Guest' });
    // Bots are always accessible.
    expect(byId.get(bot.user.id)).toMatchObject({ is_bot: true, bot_owner_id: bob.user.id });

    const seenByMember = await org.as(alice).get('/users');
    const bobForAlice = (seenByMember.body.members as { user_id: number }[]).find(
      (u) => u.user_id === bob.user.id,
    );
    expect(bobForAlice).toMatchObject({ full_name: 'Bob', email: bob.email });
  });

  it("serves the placeholder's avatar image", async () => {
    const res = await request(t.app).get(unknownUser(bob.user.id).avatar_url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect((res.body as Buffer).subarray(1, 4).toString()).toBe('PNG');
  });

  it('refuses GET /users/{id} for an inaccessible user', async () => {
    const refused = await org.as(guest).get(`/users/${bob.user.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Insufficient permission',
    });
    const byEmail = await org.as(guest).get(`/users/${encodeURIComponent(bob.email)}`);
    expect(byEmail.body.msg).toBe('Insufficient permission');
    const allowed = await org.as(guest).get(`/users/${alice.user.id}`);
    expect(allowed.status).toBe(200);
    expectOpenApiResponse('/users/{user_id}', 'get', allowed.body);
    expect(allowed.body.user).toMatchObject({ user_id: alice.user.id, full_name: 'Alice' });
  });

  it('shows placeholders in realm_users, or leaves them out with user_list_incomplete', async () => {
    const state = await org.register(guest, {
      fetch_event_types: JSON.stringify(['realm_user']),
    });
    expectOpenApiResponse('/register', 'post', state);
    const users = state.realm_users as { user_id: number }[];
    expect(users.find((u) => u.user_id === bob.user.id)).toEqual(unknownUser(bob.user.id));
    const incomplete = await org.register(guest, {
      fetch_event_types: JSON.stringify(['realm_user']),
      client_capabilities: JSON.stringify({ user_list_incomplete: true }),
    });
    const ids = (incomplete.realm_users as { user_id: number }[]).map((u) => u.user_id);
    expect(ids).toContain(alice.user.id);
    expect(ids).toContain(guest.user.id);
    expect(ids).not.toContain(bob.user.id);
  });

  it("delivers Alice's name change to the guest's queue but not Bob's", async () => {
    const queue = await org.register(guest, {
      event_types: JSON.stringify(['realm_user']),
    });
    for (const [who, name] of [
      [bob, 'Bob Renamed'],
      [alice, 'Alice Renamed'],
    ] as const) {
      const res = await org.as(org.owner).patch(`/users/${who.user.id}`, { full_name: name });
      expect(res.status).toBe(200);
    }
    const got = await org.eventsUntil(guest, queue.queue_id);
    expect(got.map((e) => e.person)).toEqual([
      { user_id: alice.user.id, full_name: 'Alice Renamed' },
    ]);
    expectOpenApiResponse('/events', 'get', { result: 'success', msg: '', events: got });
  });

  it('sends every realm_user update about Bob only to those who can access him', async () => {
    const field = await org.as(org.owner).post('/realm/profile_fields', {
      name: 'Team',
      field_type: 1,
    });
    expect(field.status).toBe(200);
    const mark = await outboxMark(t);
    await org.as(bob).patch('/settings', { full_name: 'Bobby', timezone: 'Europe/Paris' });
    await org.as(org.owner).patch(`/users/${bob.user.id}`, {
      role: Role.MODERATOR,
      profile_data: JSON.stringify([{ id: field.body.id, value: 'Ops' }]),
    });
    await org.as(bob).patch('/users/me/profile_data', {
      data: JSON.stringify([{ id: field.body.id, value: 'Infra' }]),
    });
    const aboutBob = (await eventsAfter(t, mark)).filter(
      (e) =>
        e.event.type === 'realm_user' &&
        (e.event.person as { user_id: number }).user_id === bob.user.id,
    );
    expect(aboutBob.map((e) => Object.keys(e.event.person as object).sort())).toEqual(
      expect.arrayContaining([
        ['full_name', 'user_id'],
        ['email', 'timezone', 'user_id'],
        ['role', 'user_id'],
        ['custom_profile_field', 'user_id'],
      ]),
    );
    expect(aboutBob.length).toBeGreaterThanOrEqual(5);
    for (const e of aboutBob) {
      expect(e.users).toContain(alice.user.id);
      expect(e.users).not.toContain(guest.user.id);
    }
  });

  it('gives the guest access through a direct-message conversation', async () => {
    const carol = await makeUser(t, org.realm, { fullName: 'Carol' });
    const before = await org.as(guest).get(`/users/${carol.user.id}`);
    expect(before.body.msg).toBe('Insufficient permission');
    await postDirect(t, org.realm, carol.user, [guest.user], 'hello');
    const after = await org.as(guest).get(`/users/${carol.user.id}`);
    expect(after.body.user).toMatchObject({ full_name: 'Carol' });
    const mark = await outboxMark(t);
    await org.as(org.owner).patch(`/users/${carol.user.id}`, { full_name: 'Caroline' });
    const [event] = await eventsAfter(t, mark);
    expect(event.users).toContain(guest.user.id);
  });

  it('tells the guest about a new user with a placeholder', async () => {
    const mark = await outboxMark(t);
    const dan = await makeUser(t, org.realm, { fullName: 'Dan' });
    const adds = (await eventsAfter(t, mark)).filter((e) => e.event.op === 'add');
    const forGuest = adds.filter((e) => e.users.includes(guest.user.id));
    // Marked so that queues with user_list_incomplete skip it; the mark never reaches clients.
    const { internal: marked, ...event } = forGuest[0].event;
    expect(marked).toEqual({ inaccessibleUser: true });
    expect(forGuest.map((e) => e.users)).toEqual([[guest.user.id]]);
    expect(event).toEqual({ type: 'realm_user', op: 'add', person: unknownUser(dan.user.id) });
    expectDocumentedEvent(event);
    const real = adds.find((e) => e.users.includes(alice.user.id));
    expect(real?.event.person).toMatchObject({ user_id: dan.user.id, full_name: 'Dan' });
  });

  it('sends deactivation only to users who can access the user', async () => {
    const mark = await outboxMark(t);
    const res = await org.as(org.owner).delete(`/users/${bob.user.id}`);
    expect(res.status).toBe(200);
    const [update] = await eventsAfter(t, mark);
    expect(update.event).toEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: bob.user.id, is_active: false },
    });
    expect(update.users).toContain(alice.user.id);
    expect(update.users).not.toContain(guest.user.id);
    const subs = await t.db.subscription.findMany({ where: { userId: bob.user.id } });
    expect(subs.every((s) => !s.isUserActive)).toBe(true);
  });

  it('removes a user deactivated while sharing only a channel, and restores on reactivation', async () => {
    const erin = await makeUser(t, org.realm, { fullName: 'Erin' });
    await t.db.subscription.create({
      data: { userId: erin.user.id, recipientId: shared.recipientId! },
    });
    const mark = await outboxMark(t);
    await org.as(org.owner).delete(`/users/${erin.user.id}`);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'realm_user', op: 'update', person: { user_id: erin.user.id, is_active: false } },
      {
        type: 'realm_user',
        op: 'remove',
        person: { user_id: erin.user.id, full_name: 'Unknown user' },
      },
    ]);
    expect(events[0].users).not.toContain(guest.user.id);
    expect(events[1].users).toEqual([guest.user.id]);
    for (const e of events) expectDocumentedEvent(e.event);
    const listed = await org.as(guest).get('/users');
    const erinForGuest = (listed.body.members as { user_id: number }[]).find(
      (u) => u.user_id === erin.user.id,
    );
    expect(erinForGuest).toEqual(unknownUser(erin.user.id));

    const back = await outboxMark(t);
    await org.as(org.owner).post(`/users/${erin.user.id}/reactivate`);
    const [reactivated] = await eventsAfter(t, back);
    expect(reactivated.event).toEqual({
      type: 'realm_user',
      op: 'update',
      person: { user_id: erin.user.id, is_active: true },
    });
    expect(reactivated.users).toContain(guest.user.id);
  });
});

describe('with can_access_all_users_group = role:everyone', () => {
  it('lets the guest access everyone', async () => {
    expect((await setAccessGroup(org.owner, groupIds['role:everyone'])).status).toBe(200);
    const res = await org.as(guest).get('/users');
    const names = (res.body.members as { full_name: string }[]).map((u) => u.full_name);
    expect(names).not.toContain('Unknown user');
    expect((await org.as(guest).get(`/users/${bob.user.id}`)).status).toBe(200);
    const mark = await outboxMark(t);
    await org.as(org.owner).patch(`/users/${alice.user.id}`, { full_name: 'Alice Again' });
    await makeUser(t, org.realm, { fullName: 'Frank' });
    const events = await eventsAfter(t, mark);
    expect(events.every((e) => e.users.includes(guest.user.id))).toBe(true);
    const people = events.filter((e) => e.event.type === 'realm_user');
    expect(people.map((e) => (e.event.person as { full_name: string }).full_name)).toEqual([
      'Alice Again',
      'Frank',
    ]);
  });
});
