import { lockRow } from '../../db/locks';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { namedGroup, realmUserIds } from './access-group';
import { checkSubgroups } from './check-subgroups';
import { userGroupEvent } from '../../protocol/events/user-group';

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
    // The group locked first: subgroup changes of one group take turns.
    await lockRow(tx, 'user_groups', input.groupId);
    const group = await namedGroup(tx, realm.id, input.groupId);
    await requireAccess(tx, {
      auth: { user: actor },
      permission: Permission.UserGroupManage,
      ids: [group.id],
    });
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
        userGroupEvent({ op: 'add_subgroups', group_id: group.id, direct_subgroup_ids: add }),
        audience,
      );
    }
    if (remove.length) {
      await tx.groupGroupMembership.deleteMany({
        where: { supergroupId: group.id, subgroupId: { in: remove } },
      });
      await events.emit(
        realm.id,
        userGroupEvent({ op: 'remove_subgroups', group_id: group.id, direct_subgroup_ids: remove }),
        audience,
      );
    }
  });
}
