import { lockRow } from '../../db/locks';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { activeUserIds, namedGroup, realmUserIds } from './access-group';
import { userGroupEvent } from '../../protocol/events/user-group';

/**
 * `POST /user_groups/{id}/members`: adding oneself needs `can_join_group` (or add/manage),
 * adding others `can_add_members_group`; leaving needs `can_leave_group`, removing others
 * `can_remove_members_group`; managers may do all of it. Deactivated groups take no members.
 */
export async function updateGroupMembers(
  ctx: AppContext,
  input: { actor: User; realm: Realm; groupId: number; add: number[]; remove: number[] },
): Promise<void> {
  const { actor, realm } = input;
  if (input.add.length === 0 && input.remove.length === 0) {
    throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  }
  await inTransaction(ctx, async (tx, events) => {
    // The group locked first: membership changes of one group take turns.
    await lockRow(tx, 'user_groups', input.groupId);
    const group = await namedGroup(tx, realm.id, input.groupId);
    const add = await activeUserIds(tx, realm.id, input.add);
    const remove = await activeUserIds(tx, realm.id, input.remove);
    if (add.length && group.deactivated) {
      throw badRequest("You can't add members to a deactivated user group.");
    }
    const needed = [
      [add.some((id) => id !== actor.id), Permission.UserGroupAddMembers],
      [add.includes(actor.id), Permission.UserGroupJoin],
      [remove.some((id) => id !== actor.id), Permission.UserGroupRemoveMembers],
      [remove.includes(actor.id), Permission.UserGroupLeave],
    ] as const;
    for (const [asked, permission] of needed) {
      if (asked) await requireAccess(tx, { auth: { user: actor }, permission, ids: [group.id] });
    }
    const current = new Set(
      (
        await tx.userGroupMembership.findMany({
          where: { userGroupId: group.id },
          select: { userId: true },
        })
      ).map((m) => m.userId),
    );
    for (const id of add) {
      if (current.has(id)) throw badRequest(`User ${id} is already a member of this group`);
    }
    for (const id of remove) {
      if (!current.has(id)) throw badRequest(`There is no member '${id}' in this user group`);
    }
    const audience = await realmUserIds(tx, realm.id);
    if (add.length) {
      await tx.userGroupMembership.createMany({
        data: add.map((userId) => ({ userGroupId: group.id, userId })),
      });
      await events.emit(
        realm.id,
        userGroupEvent({ op: 'add_members', group_id: group.id, user_ids: add }),
        audience,
      );
    }
    if (remove.length) {
      await tx.userGroupMembership.deleteMany({
        where: { userGroupId: group.id, userId: { in: remove } },
      });
      await events.emit(
        realm.id,
        userGroupEvent({ op: 'remove_members', group_id: group.id, user_ids: remove }),
        audience,
      );
    }
  });
}
