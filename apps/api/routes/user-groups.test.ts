import { makeChannel, withoutNestedFields } from '../../../test/channel-factories';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse, NEWER_GROUP_FIELDS } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let member: TestUser;
let other: TestUser;
let guest: TestUser;
let admin: TestUser;
let system: Record<string, number>;

beforeAll(async () => {
  org = await organization({
    members: { member: 'member', other: 'member', guest: 'guest', admin: 'administrator' },
  });
  ({ t } = org);
  ({ member, other, guest, admin } = org.users);
  const groups = await t.db.userGroup.findMany({
    where: { realmId: org.realm.id, isSystemGroup: true },
  });
  system = Object.fromEntries(groups.map((g) => [g.name as string, g.id]));
});
afterAll(() => org.close());

async function createGroup(who: TestUser, name: string, form: Record<string, string> = {}) {
  return org.as(who).post('/user_groups/create', {
    name,
    description: `${name} people`,
    members: JSON.stringify([]),
    ...form,
  });
}

describe('POST /user_groups/create and GET /user_groups', () => {
  it('creates a group with Zulip defaults and lists it', async () => {
    const res = await createGroup(member, 'designers', {
      members: JSON.stringify([member.user.id, other.user.id]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '', group_id: expect.any(Number) });
    const list = await org.as(member).get('/user_groups');
    expect(list.status).toBe(200);
    expectOpenApiResponse(
      '/user_groups',
      'get',
      withoutNestedFields(list.body, 'user_groups', NEWER_GROUP_FIELDS),
    );
    const group = list.body.user_groups.find((g: { id: number }) => g.id === res.body.group_id);
    expect(group).toMatchObject({
      name: 'designers',
      description: 'designers people',
      members: [member.user.id, other.user.id].sort((a, b) => a - b),
      direct_subgroup_ids: [],
      is_system_group: false,
      creator_id: member.user.id,
      deactivated: false,
      can_manage_group: { direct_members: [member.user.id], direct_subgroups: [] },
      can_mention_group: system['role:everyone'],
      can_join_group: system['role:nobody'],
    });
    const owners = list.body.user_groups.find((g: { name: string }) => g.name === 'role:owners');
    expect(owners.members).toEqual([org.owner.user.id]);
    expect(owners.is_system_group).toBe(true);
  });

  it('rejects bad names, duplicate names and unknown users', async () => {
    expect((await createGroup(member, '  ')).body.msg).toBe("User group name can't be empty!");
    expect((await createGroup(member, 'role:x')).body.msg).toBe(
      "User group name cannot start with 'role:'.",
    );
    expect((await createGroup(member, 'designers')).body.msg).toBe(
      "User group 'designers' already exists.",
    );
    const unknown = await createGroup(member, 'ghosts', { members: JSON.stringify([987654]) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.msg).toBe('Invalid user ID: 987654');
  });

  it('refuses guests (can_create_groups is role:members)', async () => {
    const res = await createGroup(guest, 'guest-group');
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Insufficient permission');
  });

  it('enforces the system-group restrictions of each setting', async () => {
    const res = await createGroup(member, 'open-manage', {
      can_manage_group: String(system['role:everyone']),
    });
    expect(res.body.msg).toBe("'can_manage_group' setting cannot be set to 'role:everyone' group.");
    const mention = await createGroup(member, 'owner-mention', {
      can_mention_group: String(system['role:owners']),
    });
    expect(mention.body.msg).toBe(
      "'can_mention_group' setting cannot be set to 'role:owners' group.",
    );
  });
});

describe('PATCH /user_groups/{id}', () => {
  it('renames for managers only and checks old values', async () => {
    const { body } = await createGroup(member, 'editors');
    const id = body.group_id as number;
    const denied = await org.as(other).patch(`/user_groups/${id}`, { name: 'x' });
    expect(denied.body.msg).toBe('Insufficient permission');
    const ok = await org.as(member).patch(`/user_groups/${id}`, {
      name: 'writers',
      description: 'They write',
    });
    expect(ok.status).toBe(200);
    const conflict = await org.as(member).patch(`/user_groups/${id}`, {
      can_mention_group: JSON.stringify({
        new: system['role:members'],
        old: system['role:nobody'],
      }),
    });
    expect(conflict.body.msg).toBe("'old' value does not match the expected value.");
    const update = await org.as(admin).patch(`/user_groups/${id}`, {
      can_mention_group: JSON.stringify({
        new: system['role:members'],
        old: system['role:everyone'],
      }),
    });
    expect(update.status).toBe(200);
    const row = await t.db.userGroup.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({
      name: 'writers',
      description: 'They write',
      canMentionGroupId: system['role:members'],
    });
    const sys = await org.as(admin).patch(`/user_groups/${system['role:members']}`, {
      name: 'nope',
    });
    expect(sys.body.msg).toBe('Insufficient permission');
    const missing = await org.as(admin).patch('/user_groups/999999', { name: 'nope' });
    expect(missing.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid user group' });
  });
});

describe('members and subgroups', () => {
  it('adds and removes members with the join/leave rules', async () => {
    const { body } = await createGroup(member, 'crew');
    const id = body.group_id as number;
    const add = await org.as(member).post(`/user_groups/${id}/members`, {
      add: JSON.stringify([other.user.id]),
    });
    expect(add.status).toBe(200);
    const again = await org.as(member).post(`/user_groups/${id}/members`, {
      add: JSON.stringify([other.user.id]),
    });
    expect(again.body.msg).toBe(`User ${other.user.id} is already a member of this group`);
    const selfJoin = await org.as(guest).post(`/user_groups/${id}/members`, {
      add: JSON.stringify([guest.user.id]),
    });
    expect(selfJoin.body.msg).toBe('Insufficient permission');
    const leave = await org.as(other).post(`/user_groups/${id}/members`, {
      delete: JSON.stringify([other.user.id]),
    });
    expect(leave.status).toBe(200);
    const absent = await org.as(member).post(`/user_groups/${id}/members`, {
      delete: JSON.stringify([other.user.id]),
    });
    expect(absent.body.msg).toBe(`There is no member '${other.user.id}' in this user group`);
    const list = await org.as(other).get(`/user_groups/${id}/members`);
    expectOpenApiResponse('/user_groups/{user_group_id}/members', 'get', list.body);
    expect(list.body.members).toEqual([]);
  });

  it('nests groups, resolves members recursively and prevents cycles', async () => {
    const outer = (await createGroup(member, 'outer')).body.group_id as number;
    const inner = (await createGroup(member, 'inner', { members: JSON.stringify([other.user.id]) }))
      .body.group_id as number;
    const add = await org.as(member).post(`/user_groups/${outer}/subgroups`, {
      add: JSON.stringify([inner]),
    });
    expect(add.status).toBe(200);
    const members = await org.as(member).get(`/user_groups/${outer}/members`);
    expect(members.body.members).toEqual([other.user.id]);
    const direct = await org
      .as(member)
      .get(`/user_groups/${outer}/members?direct_member_only=true`);
    expect(direct.body.members).toEqual([]);
    const isMember = await org.as(member).get(`/user_groups/${outer}/members/${other.user.id}`);
    expectOpenApiResponse('/user_groups/{user_group_id}/members/{user_id}', 'get', isMember.body);
    expect(isMember.body.is_user_group_member).toBe(true);
    const subs = await org.as(member).get(`/user_groups/${outer}/subgroups`);
    expectOpenApiResponse('/user_groups/{user_group_id}/subgroups', 'get', subs.body);
    expect(subs.body.subgroups).toEqual([inner]);
    const cycle = await org.as(member).post(`/user_groups/${inner}/subgroups`, {
      add: JSON.stringify([outer]),
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.msg).toBe(
      `User group ${inner} is already a subgroup of one of the passed subgroups.`,
    );
    const remove = await org.as(member).post(`/user_groups/${outer}/subgroups`, {
      delete: JSON.stringify([inner]),
    });
    expect(remove.status).toBe(200);
    const notSub = await org.as(member).post(`/user_groups/${outer}/subgroups`, {
      delete: JSON.stringify([inner]),
    });
    expect(notSub.body.msg).toBe(`User group ${inner} is not a subgroup of this group.`);
  });
});

describe('deactivation and reactivation', () => {
  it('deactivates unused groups, refuses them as settings, and reactivates', async () => {
    const id = (await createGroup(member, 'retiring')).body.group_id as number;
    const denied = await org.as(other).post(`/user_groups/${id}/deactivate`, {});
    expect(denied.body.msg).toBe('Insufficient permission');
    const ok = await org.as(member).post(`/user_groups/${id}/deactivate`, {});
    expect(ok.status).toBe(200);
    const listed = await org.as(member).get('/user_groups');
    expect(listed.body.user_groups.map((g: { id: number }) => g.id)).not.toContain(id);
    const withDeactivated = await org
      .as(member)
      .get('/user_groups?include_deactivated_groups=true');
    const found = withDeactivated.body.user_groups.find((g: { id: number }) => g.id === id);
    expect(found.deactivated).toBe(true);
    const asSetting = await createGroup(member, 'uses-retired', {
      can_mention_group: String(id),
    });
    expect(asSetting.body.msg).toBe('User group is deactivated.');
    const addMember = await org.as(member).post(`/user_groups/${id}/members`, {
      add: JSON.stringify([other.user.id]),
    });
    expect(addMember.body.msg).toBe("You can't add members to a deactivated user group.");
    const back = await org.as(member).patch(`/user_groups/${id}`, { deactivated: 'false' });
    expect(back.status).toBe(200);
    const row = await t.db.userGroup.findUniqueOrThrow({ where: { id } });
    expect(row.deactivated).toBe(false);
  });

  it('refuses to deactivate a group a channel setting uses', async () => {
    const id = (await createGroup(admin, 'senders')).body.group_id as number;
    const chan = await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      name: 'uses-group',
    });
    const set = await org.as(admin).patch(`/streams/${chan.id}`, {
      can_send_message_group: JSON.stringify({ new: id }),
    });
    expect(set.status).toBe(200);
    const res = await org.as(admin).post(`/user_groups/${id}/deactivate`, {});
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('Cannot deactivate user group in use.');
  });
});
