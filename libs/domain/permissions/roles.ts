import type { User } from '../../../generated/prisma/client';
import { insufficientPermission } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import { Role } from '../users/roles';

/*
 * The only place that compares role codes (lower codes are more privileged). Every other rule, in
 * this folder or outside it, asks these. The lint rule in eslint.config.mjs keeps it so.
 */

type HasRole = Pick<User, 'role'>;

/** Organization owners. */
export const isRealmOwner = (user: HasRole): boolean => user.role === Role.OWNER;
/** Organization administrators, owners included. */
export const isRealmAdmin = (user: HasRole): boolean => user.role <= Role.ADMINISTRATOR;
/** Moderators exactly (the `is_moderator` flag clients read). */
export const isRealmModerator = (user: HasRole): boolean => user.role === Role.MODERATOR;
/** Moderators, administrators and owners. */
export const isAtLeastModerator = (user: HasRole): boolean => user.role <= Role.MODERATOR;
/** Members exactly (neither moderators nor guests): the full-members group is theirs. */
export const isRealmMember = (user: HasRole): boolean => user.role === Role.MEMBER;
/** Guests. */
export const isRealmGuest = (user: HasRole): boolean => user.role === Role.GUEST;

/** Whether a role code, not a user, is the owner role (the role a change or an invitation grants). */
export const isOwnerRole = (role: number): boolean => isRealmOwner({ role });

/** `is_admin`, `is_owner` and `is_guest` of a user's JSON. */
export const roleFlags = (user: HasRole) => ({
  is_admin: isRealmAdmin(user),
  is_owner: isRealmOwner(user),
  is_guest: isRealmGuest(user),
});

/** Settings only an organization owner may change. */
export function requireRealmOwner(actor: HasRole): void {
  if (!isRealmOwner(actor)) throw insufficientPermission('Must be an organization owner');
}

/** The same rules as filters on `users.role`, for the queries below that find users by role. */
const ADMIN_ROLES = { lte: Role.ADMINISTRATOR };
const NON_GUEST_ROLES = { not: Role.GUEST };

/** IDs in ascending order: the order event recipients are recorded in. */
export const ascendingIds = (ids: Iterable<number>): Set<number> =>
  new Set([...ids].sort((a, b) => a - b));

/** The active human administrators (owners included) of an organization. */
export async function realmAdminIds(db: Db | Tx, realmId: number): Promise<Set<number>> {
  const admins = await db.user.findMany({
    where: { realmId, isActive: true, isBot: false, role: ADMIN_ROLES },
    select: { id: true },
  });
  return ascendingIds(admins.map((a) => a.id));
}

/**
 * The active users of an organization whose role passes `which`: all of them, those who are
 * not guests, or administrators (`isRealmAdmin`, `isRealmGuest` as a query).
 */
export async function realmUserIdsByRole(
  db: Db | Tx,
  realmId: number,
  which: 'all' | 'non-guests' | 'admins',
): Promise<Set<number>> {
  const role =
    which === 'admins' ? ADMIN_ROLES : which === 'non-guests' ? NON_GUEST_ROLES : undefined;
  const users = await db.user.findMany({
    where: { realmId, isActive: true, role },
    select: { id: true },
  });
  return ascendingIds(users.map((u) => u.id));
}
