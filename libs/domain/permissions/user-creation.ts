import type { User } from '../../../generated/prisma/client';
import { insufficientPermission } from '../../core/errors';
import { requireRealmAdmin } from './users';

/**
 * `POST /users` needs an administrator who also holds the server-level `can_create_users`
 * permission, which only the operator grants (Zulip's `change_user_role ... can_create_users`).
 */
export function requireCanCreateUsers(actor: Pick<User, 'role' | 'canCreateUsers'>): void {
  requireRealmAdmin(actor);
  if (!actor.canCreateUsers) throw insufficientPermission('User not authorized to create users');
}
