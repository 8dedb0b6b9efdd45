import { makeRealm, makeUserGroup } from '../../../test/factories';
import { SYSTEM_GROUP_NAMES } from '../groups/system-groups';
import { organization, type Organization } from '../../../test/organization';
import { userHasGroupSetting } from './group-settings';
import {
  everyoneGroupId,
  groupsContainingUser,
  isUserInGroup,
  recursiveGroupMemberIds,
} from './groups';

let org: Organization;

beforeAll(async () => {
  org = await organization({
    members: {
      admin: 'administrator',
      moderator: 'moderator',
      member: 'member',
      guest: 'guest',
      ada: 'member',
      bo: 'member',
      cy: 'member',
    },
  });
});
afterAll(() => org.close());

describe('group membership', () => {
  it('follows subgroups at any depth and stops at a cycle', async () => {
    const { ada, bo, cy } = org.users;
    const inner = await makeUserGroup(org.t, org.realm, { members: [cy.user] });
    const middle = await makeUserGroup(org.t, org.realm, {
      members: [bo.user],
      subgroups: [inner],
    });
    const outer = await makeUserGroup(org.t, org.realm, {
      members: [ada.user],
      subgroups: [middle],
    });
    // inner -> outer closes a cycle.
    await org.t.db.groupGroupMembership.create({
      data: { supergroupId: inner, subgroupId: outer },
    });

    expect(await isUserInGroup(org.t.db, cy.user.id, outer)).toBe(true);
    expect(await isUserInGroup(org.t.db, ada.user.id, inner)).toBe(true);
    expect(await isUserInGroup(org.t.db, org.owner.user.id, inner)).toBe(false);
    expect(await recursiveGroupMemberIds(org.t.db, middle)).toEqual(
      [ada, bo, cy].map((u) => u.user.id).sort((a, b) => a - b),
    );
    expect(await groupsContainingUser(org.t.db, bo.user.id, [inner, middle, outer])).toEqual(
      new Set([inner, middle, outer]),
    );
  });

  it('answers only for the groups asked about, and nothing for none', async () => {
    const { ada, bo } = org.users;
    const mine = await makeUserGroup(org.t, org.realm, { members: [ada.user] });
    const theirs = await makeUserGroup(org.t, org.realm, { members: [bo.user] });
    expect(await groupsContainingUser(org.t.db, ada.user.id, [mine, theirs])).toEqual(
      new Set([mine]),
    );
    expect(await groupsContainingUser(org.t.db, ada.user.id, [])).toEqual(new Set());
    expect(await recursiveGroupMemberIds(org.t.db, await makeUserGroup(org.t, org.realm))).toEqual(
      [],
    );
  });

  it('nests the role groups: each role is in its own group and every wider one', async () => {
    const { admin, moderator, member, guest } = org.users;
    const groups = org.systemGroups;
    const containing = async (who: typeof member) =>
      [...(await groupsContainingUser(org.t.db, who.user.id, Object.values(groups)))].map((id) =>
        Object.keys(groups).find((name) => groups[name] === id),
      );
    // The owner is in every role group, each containing the previous one.
    expect((await containing(org.owner)).sort()).toEqual([...SYSTEM_GROUP_NAMES].sort());
    expect(await containing(admin)).not.toContain('role:owners');
    expect(await containing(moderator)).toContain('role:moderators');
    expect(await containing(moderator)).not.toContain('role:administrators');
    // Full membership also depends on the waiting period, so only the role groups are checked.
    expect(await containing(member)).toEqual(
      expect.arrayContaining(['role:members', 'role:everyone', 'role:internet']),
    );
    expect(await containing(member)).not.toContain('role:moderators');
    expect((await containing(guest)).sort()).toEqual(['role:everyone', 'role:internet'].sort());
    for (const who of [org.owner, admin, member, guest]) {
      expect(await userHasGroupSetting(org.t.db, who.user.id, groups['role:nobody'])).toBe(false);
    }
    expect(await userHasGroupSetting(org.t.db, guest.user.id, groups['role:everyone'])).toBe(true);
    expect(await userHasGroupSetting(org.t.db, guest.user.id, groups['role:members'])).toBe(false);
  });

  it("names each organization's own role:everyone, the group every role is in", async () => {
    const other = await makeRealm(org.t);
    const otherEveryone = await org.t.db.userGroup.findFirstOrThrow({
      where: { realmId: other.realm.id, name: 'role:everyone' },
    });
    expect(await everyoneGroupId(org.t.db, org.realm.id)).toBe(org.systemGroups['role:everyone']);
    expect(await everyoneGroupId(org.t.db, other.realm.id)).toBe(otherEveryone.id);
    expect(await everyoneGroupId(org.t.db, org.realm.id)).toBe(org.systemGroups['role:everyone']);
    expect(await everyoneGroupId(org.t.db, -1)).toBeNull();
  });
});
