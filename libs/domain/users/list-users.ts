import type { Db } from '../../db/client';
import type { User } from '../../../generated/prisma/client';
import { badRequest } from '../../http/errors';
import { formatUser, type ApiUser } from './format-user';
import { loadProfileData } from './profile-data';

export interface ListUsersOptions {
  viewer: User;
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
}

/** `GET /users`: every user and bot of the viewer's organization, deactivated ones included. */
export async function listUsers(db: Db, options: ListUsersOptions): Promise<ApiUser[]> {
  const users = await db.user.findMany({
    where: { realmId: options.viewer.realmId },
    orderBy: { id: 'asc' },
  });
  const profiles = options.includeCustomProfileFields
    ? await loadProfileData(
        db,
        users.filter((u) => !u.isBot).map((u) => u.id),
      )
    : null;
  return users.map((user) =>
    formatUser(user, {
      viewer: options.viewer,
      clientGravatar: options.clientGravatar,
      profileData: profiles?.get(user.id),
    }),
  );
}

/** `GET /users/{user_id}`. */
export async function getUser(db: Db, userId: number, options: ListUsersOptions): Promise<ApiUser> {
  const user = await db.user.findFirst({ where: { id: userId, realmId: options.viewer.realmId } });
  if (!user) throw badRequest('No such user');
  const profiles =
    options.includeCustomProfileFields && !user.isBot ? await loadProfileData(db, [user.id]) : null;
  return formatUser(user, {
    viewer: options.viewer,
    clientGravatar: options.clientGravatar,
    profileData: profiles?.get(user.id),
  });
}
