import type { Realm, User, UserGroup } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import type { AccessUser, Verdict } from './access';
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

const NOTHING: GroupAccess = {
  manage: false,
  addOthers: false,
  join: false,
  leave: false,
  removeOthers: false,
};

/**
 * What `user` may do with `group`, by the group's settings and the organization's
 * `can_manage_all_groups` (`manageAllId`), knowing which of their groups the user is in.
 */
function groupAccess(
  user: Pick<User, 'role'>,
  group: GroupRow,
  { manageAllId, inGroups }: { manageAllId: number | null; inGroups: Set<number> },
): GroupAccess {
  if (group.isSystemGroup) return NOTHING;
  const has = (id: number | null) => id !== null && inGroups.has(id);
  const manage = isRealmAdmin(user) || has(manageAllId) || has(group.canManageGroupId);
  return {
    manage,
    addOthers: manage || has(group.canAddMembersGroupId),
    join: manage || has(group.canJoinGroupId) || has(group.canAddMembersGroupId),
    leave: manage || has(group.canLeaveGroupId),
    removeOthers: manage || has(group.canRemoveMembersGroupId),
  };
}

/**
 * The `Permission.UserGroup*` rules (access.ts): the groups of the caller's organization among
 * `ids` on which the caller has `ability`, with one query for the groups and one for the
 * caller's memberships of every group their settings name.
 */
export async function groupVerdict(
  db: Db | Tx,
  user: AccessUser,
  ability: keyof GroupAccess,
  ids: number[],
): Promise<Verdict> {
  const groups = await db.userGroup.findMany({
    where: { id: { in: ids }, realmId: user.realmId },
    select: {
      id: true,
      isSystemGroup: true,
      canAddMembersGroupId: true,
      canJoinGroupId: true,
      canLeaveGroupId: true,
      canManageGroupId: true,
      canRemoveMembersGroupId: true,
      realm: { select: { canManageAllGroupsId: true } },
    },
  });
  const settingIds = groups.flatMap((g) =>
    [
      g.realm.canManageAllGroupsId,
      g.canManageGroupId,
      g.canAddMembersGroupId,
      g.canJoinGroupId,
      g.canLeaveGroupId,
      g.canRemoveMembersGroupId,
    ].filter((id): id is number => id !== null),
  );
  const inGroups = await groupsContainingUser(db, user.id, [...new Set(settingIds)]);
  const allowed = groups.filter(
    (g) => groupAccess(user, g, { manageAllId: g.realm.canManageAllGroupsId, inGroups })[ability],
  );
  return {
    allowed: new Set(allowed.map((g) => g.id)),
    refusal: () => badRequest('Insufficient permission'),
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
