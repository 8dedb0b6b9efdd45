import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest, insufficientPermission } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canAdministerUsers, usersWhoCanAccess } from '../permissions/users';
import { setActive } from './set-active';
import { realmUserEvent } from '../../protocol/events/realm-user';

/**
 * `POST /users/{user_id}/reactivate`: an administrator (or, with `actor` null, the operator)
 * restores a deactivated user.
 */
export async function reactivateUser(
  ctx: AppContext,
  input: { actor: User | null; realm: Realm; target: User },
): Promise<void> {
  const { actor, realm, target } = input;
  if (actor && !canAdministerUsers(actor)) throw insufficientPermission();
  if (target.isActive) throw badRequest('User is already active');
  if (target.isBot && target.botOwnerId !== null) {
    const owner = await ctx.db.user.findUnique({ where: { id: target.botOwnerId } });
    if (owner && !owner.isActive) throw badRequest('Bot owner is deactivated');
  }
  await inTransaction(ctx, async (tx, events) => {
    await setActive(tx, [target.id], true);
    await events.emit(
      realm.id,
      realmUserEvent({ op: 'update', person: { user_id: target.id, is_active: true } }),
      await usersWhoCanAccess(tx, target),
    );
  });
}
