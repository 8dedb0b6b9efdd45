import type { UserGroup } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';

/** A named group of the organization, or Zulip's "Invalid user group". */
export async function namedGroup(
  db: Db | Tx,
  realmId: number,
  groupId: number,
): Promise<UserGroup> {
  const group = await db.userGroup.findFirst({ where: { id: groupId, realmId, named: true } });
  if (!group) throw badRequest('Invalid user group');
  return group;
}

/** Zulip's group-name rules. */
export function checkGroupName(raw: string, maxLength: number): string {
  const name = raw;
  if (name.trim() === '') throw badRequest("User group name can't be empty!");
  if ([...name].length > maxLength) {
    throw badRequest(`User group name cannot exceed ${maxLength} characters.`);
  }
  for (const prefix of ['@', 'role:', 'user:', 'stream:', 'channel:']) {
    if (name.startsWith(prefix)) {
      throw badRequest(`User group name cannot start with '${prefix}'.`);
    }
  }
  return name;
}

/** Active users of the organization by ID, or "Invalid user ID: N" for the first missing one. */
export async function activeUserIds(
  db: Db | Tx,
  realmId: number,
  ids: number[],
): Promise<number[]> {
  const unique = [...new Set(ids)];
  const found = await db.user.findMany({
    where: { id: { in: unique }, realmId, isActive: true },
    select: { id: true },
  });
  const ok = new Set(found.map((u) => u.id));
  const missing = unique.find((id) => !ok.has(id));
  if (missing !== undefined) throw badRequest(`Invalid user ID: ${missing}`);
  return unique;
}

/** Realm users who receive `user_group` events. */
export async function realmUserIds(db: Db | Tx, realmId: number): Promise<number[]> {
  const users = await db.user.findMany({
    where: { realmId, isActive: true },
    select: { id: true },
  });
  return users.map((u) => u.id);
}
