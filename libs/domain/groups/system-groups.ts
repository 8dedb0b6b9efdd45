import type { Db, Tx } from '../../db/client';
import { Role, type RoleCode } from '../users/roles';
import { isRealmMember } from '../permissions/roles';
import type { EventSink } from '../../events/outbox';
import { userGroupEvent } from '../../protocol/events/user-group';
import { realmUserIds } from './access-group';
import { at } from '../../core/at';

/** Zulip's system groups, most to least privileged; each contains the previous one as a subgroup. */
export const SYSTEM_GROUP_NAMES = [
  'role:owners',
  'role:administrators',
  'role:moderators',
  'role:fullmembers',
  'role:members',
  'role:everyone',
  'role:internet',
] as const;
export const NOBODY_GROUP = 'role:nobody';
const ALL_SYSTEM_GROUPS = [...SYSTEM_GROUP_NAMES, NOBODY_GROUP] as const;

export type SystemGroupName = (typeof SYSTEM_GROUP_NAMES)[number] | typeof NOBODY_GROUP;
export type SystemGroupIds = Record<SystemGroupName, number>;

const DESCRIPTIONS: Record<SystemGroupName, string> = {
  'role:owners': 'Owners of this organization',
  'role:administrators': 'Administrators of this organization, including owners',
  'role:moderators': 'Moderators of this organization, including administrators',
  'role:fullmembers': 'Members of this organization, not including new accounts and guests',
  'role:members': 'Members of this organization, not including guests',
  'role:everyone': 'Everyone in this organization, including guests',
  'role:internet': 'Everyone on the Internet',
  'role:nobody': 'Nobody',
};

/** The system group a user of each role is a direct member of. */
export const ROLE_SYSTEM_GROUP: Record<RoleCode, SystemGroupName> = {
  [Role.OWNER]: 'role:owners',
  [Role.ADMINISTRATOR]: 'role:administrators',
  [Role.MODERATOR]: 'role:moderators',
  [Role.MEMBER]: 'role:members',
  [Role.GUEST]: 'role:everyone',
};

/** Creates the eight system groups of a new organization, nested as Zulip nests them. */
export async function createSystemGroups(tx: Tx, realmId: number): Promise<SystemGroupIds> {
  const ids = {} as SystemGroupIds;
  for (const name of ALL_SYSTEM_GROUPS) {
    const group = await tx.userGroup.create({
      data: { realmId, name, description: DESCRIPTIONS[name], isSystemGroup: true },
      select: { id: true },
    });
    ids[name] = group.id;
  }
  await tx.groupGroupMembership.createMany({
    data: SYSTEM_GROUP_NAMES.slice(1).map((name, i) => ({
      supergroupId: ids[name],
      subgroupId: ids[at(SYSTEM_GROUP_NAMES, i)],
    })),
  });
  // System groups are managed by role changes only; everyone may mention them except the widest.
  for (const name of ALL_SYSTEM_GROUPS) {
    await tx.userGroup.update({
      where: { id: ids[name] },
      data: {
        canAddMembersGroupId: ids[NOBODY_GROUP],
        canJoinGroupId: ids[NOBODY_GROUP],
        canLeaveGroupId: ids[NOBODY_GROUP],
        canManageGroupId: ids[NOBODY_GROUP],
        canMentionGroupId: ids['role:everyone'],
        canRemoveMembersGroupId: ids[NOBODY_GROUP],
      },
    });
  }
  return ids;
}

export async function systemGroupIds(db: Db | Tx, realmId: number): Promise<SystemGroupIds> {
  const rows = await db.userGroup.findMany({
    where: { realmId, isSystemGroup: true },
    select: { id: true, name: true },
  });
  const ids = {} as SystemGroupIds;
  for (const row of rows) ids[row.name as SystemGroupName] = row.id;
  return ids;
}

/**
 * Puts a user in the system groups their role implies. Members are also full members while the
 * organization's waiting period is over for them. The organization's users learn each group's
 * change (`user_group` remove_members, then add_members), as Zulip's do_change_user_role tells them.
 */
export async function setRoleGroupMembership(
  tx: Tx,
  events: EventSink,
  {
    realmId,
    groups,
    userId,
    role,
    isFullMember,
  }: {
    realmId: number;
    groups: SystemGroupIds;
    userId: number;
    role: RoleCode;
    isFullMember: boolean;
  },
): Promise<void> {
  const roleGroupIds = SYSTEM_GROUP_NAMES.map((name) => groups[name]);
  const before = await tx.userGroupMembership.findMany({
    where: { userId, userGroupId: { in: roleGroupIds } },
    select: { userGroupId: true },
  });
  await tx.userGroupMembership.deleteMany({ where: { userId, userGroupId: { in: roleGroupIds } } });
  const direct = [groups[ROLE_SYSTEM_GROUP[role]]];
  if (isRealmMember({ role }) && isFullMember) direct.push(groups['role:fullmembers']);
  await tx.userGroupMembership.createMany({
    data: direct.map((userGroupId) => ({ userGroupId, userId })),
  });
  const was = new Set(before.map((m) => m.userGroupId));
  const removed = [...was].filter((id) => !direct.includes(id));
  const added = direct.filter((id) => !was.has(id));
  if (!removed.length && !added.length) return;
  const audience = await realmUserIds(tx, realmId);
  for (const id of removed) {
    await events.emit(
      realmId,
      userGroupEvent({ op: 'remove_members', group_id: id, user_ids: [userId] }),
      audience,
    );
  }
  for (const id of added) {
    await events.emit(
      realmId,
      userGroupEvent({ op: 'add_members', group_id: id, user_ids: [userId] }),
      audience,
    );
  }
}
