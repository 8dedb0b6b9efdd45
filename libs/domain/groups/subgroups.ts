import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { userGroupAccess } from '../permissions/user-groups';
import { namedGroup, realmUserIds } from './access-group';

/**
 * Subgroups to add must be named groups of the organization and must not contain the
 * supergroup (directly or through their own subgroups), which would make a cycle.
 */
export async function checkSubgroups(
  tx: Tx,
  realmId: number,
  supergroupId: number,
  subgroupIds: number[],
): Promise<void> {
  const found = await tx.userGroup.findMany({
    where: { id: { in: subgroupIds }, realmId, named: true },
    select: { id: true },
  });
  const ok = new Set(found.map((g) => g.id));
  const missing = subgroupIds.find((id) => !ok.has(id));
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
  const rows = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
    WITH RECURSIVE below(id) AS (
      SELECT unnest(${subgroupIds}::int[])
      UNION
      SELECT gm.subgroup_id FROM group_group_memberships gm JOIN below b ON gm.supergroup_id = b.id
    )
    SELECT id FROM below WHERE id = ${supergroupId}`);
  if (rows.length) {
    throw badRequest(
      `User group ${supergroupId} is already a subgroup of one of the passed subgroups.`,
    );
  }
}

/** Subgroup IDs of a group: direct only, or all the way down. */
export async function subgroupIds(db: Db, groupId: number, directOnly: boolean): Promise<number[]> {
  if (directOnly) {
    const rows = await db.groupGroupMembership.findMany({
      where: { supergroupId: groupId },
      select: { subgroupId: true },
    });
    return rows.map((r) => r.subgroupId).sort((a, b) => a - b);
  }
  const rows = await db.$queryRaw<{ id: number }[]>(Prisma.sql`
    WITH RECURSIVE below(id) AS (
      SELECT subgroup_id FROM group_group_memberships WHERE supergroup_id = ${groupId}
      UNION
      SELECT gm.subgroup_id FROM group_group_memberships gm JOIN below b ON gm.supergroup_id = b.id
    )
    SELECT id FROM below WHERE id <> ${groupId} ORDER BY id`);
  return rows.map((r) => r.id);
}

/** `POST /user_groups/{id}/subgroups`: needs permission to manage the group. */
export async function updateSubgroups(
  ctx: AppContext,
  input: { actor: User; realm: Realm; groupId: number; add: number[]; remove: number[] },
): Promise<void> {
  const { actor, realm } = input;
  if (input.add.length === 0 && input.remove.length === 0) {
    throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  }
  await inTransaction(ctx, async (tx, events) => {
    const group = await namedGroup(tx, realm.id, input.groupId);
    const access = await userGroupAccess(tx, actor, realm, group);
    if (!access.manage) throw badRequest('Insufficient permission');
    const direct = new Set(
      (
        await tx.groupGroupMembership.findMany({
          where: { supergroupId: group.id },
          select: { subgroupId: true },
        })
      ).map((r) => r.subgroupId),
    );
    const add = [...new Set(input.add)];
    const remove = [...new Set(input.remove)];
    for (const id of add) {
      if (direct.has(id)) throw badRequest(`User group ${id} is already a subgroup of this group.`);
    }
    for (const id of remove) {
      if (!direct.has(id)) throw badRequest(`User group ${id} is not a subgroup of this group.`);
    }
    const audience = await realmUserIds(tx, realm.id);
    if (add.length) {
      await checkSubgroups(tx, realm.id, group.id, add);
      await tx.groupGroupMembership.createMany({
        data: add.map((subgroupId) => ({ supergroupId: group.id, subgroupId })),
      });
      await events.emit(
        realm.id,
        { type: 'user_group', op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: add },
        audience,
      );
    }
    if (remove.length) {
      await tx.groupGroupMembership.deleteMany({
        where: { supergroupId: group.id, subgroupId: { in: remove } },
      });
      await events.emit(
        realm.id,
        {
          type: 'user_group',
          op: 'remove_subgroups',
          group_id: group.id,
          direct_subgroup_ids: remove,
        },
        audience,
      );
    }
  });
}
