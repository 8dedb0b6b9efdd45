import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest, insufficientPermission } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import { isRoleCode, Role } from '../users/roles';
import { groupsContainingUser } from './groups';
import {
  ascendingIds,
  isAtLeastModerator,
  isOwnerRole,
  isRealmGuest,
  realmAdminIds,
  requireRealmOwner,
} from './roles';
import { canAdministerUsers } from './users';

/** Invitations grant roles no more privileged than the inviter's (spec 5.4). */
export function requireCanInviteAs(actor: Pick<User, 'role'>, role: number): void {
  if (!isRoleCode(role)) throw badRequest('Invalid invite_as');
  if (isOwnerRole(role)) requireRealmOwner(actor);
  if (role === Role.ADMINISTRATOR && !canAdministerUsers(actor)) {
    throw insufficientPermission('Must be an organization administrator');
  }
  // The spec allows roles equal to the inviter's, so moderators may invite moderators (Zulip's
  // own code asks for an administrator here).
  if (role === Role.MODERATOR && !isAtLeastModerator(actor)) {
    throw insufficientPermission('Must be an organization administrator');
  }
}

/** May the user invite people by email (`can_invite_users_group`; never guests)? */
export async function canInviteByEmail(
  db: Db | Tx,
  actor: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'canInviteUsersGroupId'>,
): Promise<boolean> {
  if (isRealmGuest(actor)) return false;
  if (canAdministerUsers(actor)) return true;
  const id = realm.canInviteUsersGroupId;
  return id !== null && (await groupsContainingUser(db, actor.id, [id])).has(id);
}

/** May the user create reusable invitation links (`create_multiuse_invite_group`)? */
export async function canCreateMultiuseInvite(
  db: Db | Tx,
  actor: Pick<User, 'id' | 'role'>,
  realm: Pick<Realm, 'createMultiuseInviteGroupId'>,
): Promise<boolean> {
  if (isRealmGuest(actor)) return false;
  const id = realm.createMultiuseInviteGroupId;
  if (id === null) return canAdministerUsers(actor);
  return (await groupsContainingUser(db, actor.id, [id])).has(id);
}

/**
 * Administrators see and manage everyone's invitations; others their own (asked through
 * `Permission.InvitationManage` and `MultiuseInviteManage`, row-verdicts.ts).
 */
export const managesAllInvites = (actor: Pick<User, 'role'>): boolean => canAdministerUsers(actor);

/** Who manages an invitation, as recipients of `invites_changed`: the administrators and its inviter. */
export async function inviteManagerIds(
  db: Db | Tx,
  realmId: number,
  referrerId: number,
): Promise<Set<number>> {
  return ascendingIds([...(await realmAdminIds(db, realmId)), referrerId]);
}
