import type { User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';

/**
 * Grants or revokes the server-level `can_create_users` permission. Operator-only (the CLI), as
 * in Zulip; clients never see the flag, so no event is sent.
 */
export async function setCanCreateUsers(
  ctx: AppContext,
  target: User,
  allowed: boolean,
): Promise<User> {
  return ctx.db.user.update({ where: { id: target.id }, data: { canCreateUsers: allowed } });
}
