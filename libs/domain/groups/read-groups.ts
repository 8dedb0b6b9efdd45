import type { Realm, User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { requireGroupReader } from '../permissions/user-groups';
import { namedGroup } from './access-group';
import { listUserGroups, type UserGroupDict } from './format-group';
import { groupMemberIds, isGroupMember } from './group-members';
import { subgroupIds } from './subgroup-ids';

/*
 * The user-group reads (`GET /user_groups...`). Each asks the oracle first: members and
 * administrators read groups, guests and bots do not (Zulip's `require_member_or_admin`).
 */

type GroupRead = { viewer: User; realm: Pick<Realm, 'id'> };

/** `GET /user_groups`. */
export async function readUserGroups(
  db: Db,
  input: GroupRead & { includeDeactivated: boolean },
): Promise<UserGroupDict[]> {
  requireGroupReader(input.viewer);
  return listUserGroups(db, input.realm.id, input.includeDeactivated);
}

/** `GET /user_groups/{id}/members`. */
export async function readGroupMembers(
  db: Db,
  input: GroupRead & { groupId: number; directOnly: boolean },
): Promise<number[]> {
  requireGroupReader(input.viewer);
  return groupMemberIds(db, input.realm.id, input.groupId, input.directOnly);
}

/** `GET /user_groups/{id}/members/{user_id}`. */
export async function readGroupMembership(
  db: Db,
  input: GroupRead & { groupId: number; userId: number; directOnly: boolean },
): Promise<boolean> {
  requireGroupReader(input.viewer);
  return isGroupMember(db, {
    realmId: input.realm.id,
    groupId: input.groupId,
    userId: input.userId,
    directOnly: input.directOnly,
  });
}

/** `GET /user_groups/{id}/subgroups`. */
export async function readSubgroups(
  db: Db,
  input: GroupRead & { groupId: number; directOnly: boolean },
): Promise<number[]> {
  requireGroupReader(input.viewer);
  const group = await namedGroup(db, input.realm.id, input.groupId);
  return subgroupIds(db, group.id, input.directOnly);
}
