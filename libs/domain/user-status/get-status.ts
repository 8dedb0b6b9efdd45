import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { Permission, requireAccess } from '../permissions/access';
import { formatUserStatus, type ApiUserStatus } from './format-status';

/**
 * `GET /users/{user_id}/status`, for active human users the viewer can access
 * (can_access_all_users_group), with Zulip's access_user_by_id wording. A user who never set a
 * status has none to show, as in Zulip, even when invisible.
 */
export async function getUserStatus(
  db: Db,
  viewer: { id: number; realmId: number; role: number },
  userId: number,
): Promise<ApiUserStatus> {
  const user = await db.user.findFirst({
    where: { id: userId, realmId: viewer.realmId },
    include: { status: true },
  });
  if (!user || user.isBot) throw badRequest('No such user');
  if (!user.isActive) throw badRequest('User is deactivated');
  await requireAccess(db, {
    auth: { user: viewer },
    permission: Permission.UserRead,
    ids: [user.id],
  });
  return user.status ? formatUserStatus(user.status, user.presenceEnabled) : {};
}
