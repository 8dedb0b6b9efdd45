import type { Realm, User, UserGroup } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { groupsContainingUser } from './groups';
import { isRealmAdmin } from './roles';
import { requireNonGuest } from './users';

type GroupRow = Pick<
  UserGroup,
  | 'isSystemGroup'
  | 'canAddMembersGroupId'
  | 'canJoinGroupId'
  | 'canLeaveGroupId'
  | 'canManageGroupId'
  | 'canRemoveMembersGroupId'
>;

/** What the caller may do with one user group. System groups change only through roles. */
export interface GroupAccess {
  manage: boolean;
  addOthers: boolean;
  join: boolean;
  leave: boolean;
  removeOthers: boolean;
}

export async function userGroupAccess(
  db: Db | Tx,
  user: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'canManageAllGroupsId'>,
  group: GroupRow,
): Promise<GroupAccess> {
  if (group.isSystemGroup) {
    return { manage: false, addOthers: false, join: false, leave: false, removeOthers: false };
  }
  const ids = [
    realm.canManageAllGroupsId,
    group.canManageGroupId,
    group.canAddMembersGroupId,
    group.canJoinGroupId,
    group.canLeaveGroupId,
    group.canRemoveMembersGroupId,
  ].filter((id): id is number => id !== null);
  const inGroups = await groupsContainingUser(db, user.id, ids);
  const has = (id: number | null) => id !== null && inGroups.has(id);
  const manage =
    isRealmAdmin(user) || has(realm.canManageAllGroupsId) || has(group.canManageGroupId);
  return {
    manage,
    addOthers: manage || has(group.canAddMembersGroupId),
    join: manage || has(group.canJoinGroupId) || has(group.canAddMembersGroupId),
    leave: manage || has(group.canLeaveGroupId),
    removeOthers: manage || has(group.canRemoveMembersGroupId),
  };
}

/** May the user create user groups (the organization's `can_create_groups`)? */
export async function canCreateUserGroups(
  db: Db | Tx,
  user: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'canCreateGroupsId' | 'canManageAllGroupsId'>,
): Promise<boolean> {
  if (isRealmAdmin(user)) return true;
  const ids = [realm.canCreateGroupsId, realm.canManageAllGroupsId].filter(
    (id): id is number => id !== null,
  );
  return (await groupsContainingUser(db, user.id, ids)).size > 0;
}

/**
 * Reading user groups is for members and administrators: Zulip's `require_member_or_admin`
 * refuses guests and bots on the group read endpoints.
 */
export function requireGroupReader(actor: Pick<User, 'role' | 'isBot'>): void {
  requireNonGuest(actor);
  if (actor.isBot) throw badRequest('This endpoint does not accept bot requests.');
}
