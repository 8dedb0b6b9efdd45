import type { Db } from '../../db/client';
import { isUserInGroup, recursiveGroupMemberIds } from '../permissions/groups';
import { activeUserIds, namedGroup } from './access-group';

/** `GET /user_groups/{id}/members`. */
export async function groupMemberIds(
  db: Db,
  realmId: number,
  groupId: number,
  directOnly: boolean,
): Promise<number[]> {
  const group = await namedGroup(db, realmId, groupId);
  if (!directOnly) {
    const ids = await recursiveGroupMemberIds(db, group.id);
    const active = await db.user.findMany({
      where: { id: { in: ids }, isActive: true },
      select: { id: true },
      orderBy: { id: 'asc' },
    });
    return active.map((u) => u.id);
  }
  const rows = await db.userGroupMembership.findMany({
    where: { userGroupId: group.id, user: { isActive: true } },
    select: { userId: true },
    orderBy: { userId: 'asc' },
  });
  return rows.map((r) => r.userId);
}

/** `GET /user_groups/{id}/members/{user_id}`. */
export async function isGroupMember(
  db: Db,
  {
    realmId,
    groupId,
    userId,
    directOnly,
  }: { realmId: number; groupId: number; userId: number; directOnly: boolean },
): Promise<boolean> {
  const group = await namedGroup(db, realmId, groupId);
  await activeUserIds(db, realmId, [userId]);
  if (directOnly) {
    const row = await db.userGroupMembership.findUnique({
      where: { userGroupId_userId: { userGroupId: group.id, userId } },
    });
    return row !== null;
  }
  return isUserInGroup(db, userId, group.id);
}
