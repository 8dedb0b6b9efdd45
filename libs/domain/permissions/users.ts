import type { User } from '../../../generated/prisma/client';
import { insufficientPermission } from '../../http/errors';
import type { Db, Tx } from '../../db/client';
import { Role } from '../users/roles';

/** Organization administrators (and owners) manage other users: edit, deactivate, reactivate. */
export const canAdministerUsers = (actor: Pick<User, 'role'>): boolean =>
  actor.role <= Role.ADMINISTRATOR;

/** Changing another user's email needs an owner holding the can_change_user_emails permission. */
export const canChangeUserEmails = (actor: Pick<User, 'role' | 'canChangeUserEmails'>): boolean =>
  actor.role === Role.OWNER && actor.canChangeUserEmails;

/** A user may edit their own email unless the organization disabled it (administrators always may). */
export const canChangeOwnEmail = (
  actor: Pick<User, 'role'>,
  realm: { emailChangesDisabled: boolean },
): boolean => !realm.emailChangesDisabled || actor.role <= Role.ADMINISTRATOR;

/** A user may edit their own name unless the organization disabled it (administrators always may). */
export const canChangeOwnName = (
  actor: Pick<User, 'role'>,
  realm: { nameChangesDisabled: boolean },
): boolean => !realm.nameChangesDisabled || actor.role <= Role.ADMINISTRATOR;

/**
 * Who receives `realm_user` events about a user of this organization: the active people of the
 * organization (the same audience user creation uses).
 */
export async function realmUserAudience(db: Db | Tx, realmId: number): Promise<number[]> {
  const rows = await db.user.findMany({
    where: { realmId, isActive: true, isBot: false },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/** Organization settings (linkifiers, profile fields, realm settings) are for administrators. */
export function requireRealmAdmin(actor: Pick<User, 'role'>): void {
  if (!canAdministerUsers(actor)) {
    throw insufficientPermission('Must be an organization administrator');
  }
}
