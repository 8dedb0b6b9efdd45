import type { User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { setRoleGroupMembership, systemGroupIds } from '../groups/system-groups';
import { usersWhoCanAccess } from '../permissions/users';
import { Role, type RoleCode } from './roles';

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
  if (actor && (role === Role.OWNER || target.role === Role.OWNER) && actor.role !== Role.OWNER) {
    throw badRequest('Must be an organization owner');
  }
  if (target.isBot && role === Role.OWNER) throw badRequest('Bots cannot be organization owners');
  return inTransaction(ctx, async (tx, events) => {
    if (target.role === Role.OWNER && role !== Role.OWNER) {
      const owners = await tx.user.count({
        where: { realmId: target.realmId, role: Role.OWNER, isActive: true, isBot: false },
      });
      if (owners <= 1) {
        throw badRequest(
          'The owner permission cannot be removed from the only organization owner.',
        );
      }
    }
    const updated = await tx.user.update({ where: { id: target.id }, data: { role } });
    const realm = await tx.realm.findUniqueOrThrow({ where: { id: target.realmId } });
    const groups = await systemGroupIds(tx, target.realmId);
    await setRoleGroupMembership(tx, groups, target.id, role, realm.waitingPeriodThreshold === 0);
    await events.emit(
      target.realmId,
      { type: 'realm_user', op: 'update', person: { user_id: target.id, role } },
      await usersWhoCanAccess(tx, target),
    );
    return updated;
  });
}
