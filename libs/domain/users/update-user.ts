import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { usersWhoCanAccess } from '../permissions/users';
import { setProfileValues, type ProfileDataUpdate } from '../profile-fields/set-values';
import { applyEmailChange } from './change-email';
import { changeRole } from './change-role';
import { isRoleCode, type RoleCode } from './roles';
import { checkFullName, normalizeEmail } from './validate';
import { realmUserEvent } from '../../protocol/events/realm-user';

export interface UpdateUserInput {
  actor: User;
  realm: Realm;
  targetId: number;
  fullName?: string;
  role?: number;
  profileData?: ProfileDataUpdate[];
  newEmail?: string;
}

/**
 * Finds a user of the organization, active or not, for an administrator's action. System bots
 * are not the organization's to change.
 */
export async function userForAdmin(
  ctx: AppContext,
  realm: Realm,
  userId: number,
  options: { allowBots: boolean },
): Promise<User> {
  const target = await ctx.db.user.findFirst({
    where: { id: userId, realmId: realm.id, isSystemBot: false },
  });
  if (!target || (target.isBot && !options.allowBots)) throw badRequest('No such user');
  return target;
}

/** `PATCH /users/{user_id}`: an administrator edits another user's name, role, profile or email. */
export async function updateUser(ctx: AppContext, input: UpdateUserInput): Promise<void> {
  const { actor, realm } = input;
  const auth = { user: actor };
  await requireAccess(ctx.db, {
    auth,
    permission: Permission.UserAdminister,
    ids: [input.targetId],
  });
  const target = await userForAdmin(ctx, realm, input.targetId, { allowBots: true });
  if (input.role !== undefined && !isRoleCode(input.role)) throw badRequest('Invalid role');
  if (input.newEmail !== undefined) {
    await requireAccess(ctx.db, { auth, permission: Permission.UserChangeEmail, ids: [target.id] });
  }
  const fullName = input.fullName !== undefined ? checkFullName(input.fullName) : undefined;
  const newEmail = input.newEmail !== undefined ? normalizeEmail(input.newEmail) : undefined;

  if (input.role !== undefined && input.role !== target.role) {
    await changeRole(ctx, actor, target, input.role as RoleCode);
  }
  await inTransaction(ctx, async (tx, events) => {
    const audience = await usersWhoCanAccess(tx, target);
    if (fullName !== undefined && fullName !== target.fullName) {
      await tx.user.update({ where: { id: target.id }, data: { fullName } });
      await events.emit(
        realm.id,
        realmUserEvent({ op: 'update', person: { user_id: target.id, full_name: fullName } }),
        audience,
      );
    }
    if (newEmail !== undefined) {
      await applyEmailChange(tx, events, { realm, target, newEmail, audience });
    }
    if (input.profileData) {
      await setProfileValues(ctx, tx, events, {
        realm,
        user: target,
        updates: input.profileData,
      });
    }
  });
}
