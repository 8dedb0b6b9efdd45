import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { Permission, requireAccess } from '../permissions/access';
import { formatUser, type ApiUser } from './format-user';
import { loadProfileData } from './profile-data';
import type { ListUsersOptions } from './list-users';

/**
 * `GET /users/{user_id}`; a user the viewer cannot access is refused, as Zulip does. System bots
 * are found too (Zulip's `access_user_by_id_including_cross_realm`).
 */
export async function getUser(
  db: Db,
  userId: number,
  options: Omit<ListUsersOptions, 'realm' | 'omitInaccessible'>,
): Promise<ApiUser> {
  const user = await db.user.findFirst({ where: { id: userId, realmId: options.viewer.realmId } });
  if (!user) throw badRequest('No such user');
  await requireAccess(db, {
    auth: { user: options.viewer },
    permission: Permission.UserRead,
    ids: [user.id],
  });
  const profiles =
    options.includeCustomProfileFields && !user.isBot ? await loadProfileData(db, [user.id]) : null;
  return formatUser(user, {
    viewer: options.viewer,
    clientGravatar: options.clientGravatar,
    profileData: profiles?.get(user.id),
  });
}
