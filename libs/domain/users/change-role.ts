import type { User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { setRoleGroupMembership, systemGroupIds } from '../groups/system-groups';
import { isOwnerRole } from '../permissions/roles';
import { Permission, requireAccess } from '../permissions/access';
import { isOnlyOwner, requireGrantableRole, usersWhoCanAccess } from '../permissions/users';
import type { RoleCode } from './roles';
import { realmUserEvent } from '../../protocol/events/realm-user';

/**
 * Changes a user's role and the system groups that follow from it. The organization must keep an
 * owner; only owners grant or take away the owner role (`actor` null: the operator, who may).
 */
export async function changeRole(
  ctx: AppContext,
  actor: User | null,
  target: User,
  role: RoleCode,
): Promise<User> {
  if (actor) {
    await requireAccess(ctx.db, {
      auth: { user: actor },
      permission: Permission.UserChangeRole,
      ids: [target.id],
    });
  }
  requireGrantableRole(actor, target, role);
  return inTransaction(ctx, async (tx, events) => {
    if (!isOwnerRole(role) && (await isOnlyOwner(tx, target))) {
      throw badRequest('The owner permission cannot be removed from the only organization owner.');
    }
    const updated = await tx.user.update({ where: { id: target.id }, data: { role } });
    const realm = await tx.realm.findUniqueOrThrow({ where: { id: target.realmId } });
    const groups = await systemGroupIds(tx, target.realmId);
    await setRoleGroupMembership(tx, events, {
      realmId: target.realmId,
      groups,
      userId: target.id,
      role,
      isFullMember: realm.waitingPeriodThreshold === 0,
    });
    await events.emit(
      target.realmId,
      realmUserEvent({ op: 'update', person: { user_id: target.id, role } }),
      await usersWhoCanAccess(tx, target),
    );
    return updated;
  });
}
