import type { Config } from '../../core/config';
import type { Db, Tx } from '../../db/client';
import type { Realm, User } from '../../../generated/prisma/client';
import { checkAccess, Permission } from '../permissions/access';
import { formatUser, USER_FORMAT_FIELDS, type ApiUser, type FormattableUser } from './format-user';
import { loadProfileData } from './profile-data';
import { fakeEmailDomain, inaccessibleUser } from './user-access';

export interface ListUsersOptions {
  viewer: User;
  realm: Pick<Realm, 'stringId'>;
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
  /**
   * Leave out users the viewer cannot access instead of showing them as "Unknown user"
   * (the `user_list_incomplete` client capability).
   */
  omitInaccessible?: boolean;
}

/**
 * `GET /users`: every user and bot of the viewer's organization, deactivated ones included. A guest
 * restricted by `can_access_all_users_group` gets placeholders for the users they cannot access.
 */
export async function listUsers(
  ctx: { db: Db | Tx; config: Pick<Config, 'externalHost' | 'fakeEmailDomain'> },
  options: ListUsersOptions,
): Promise<ApiUser[]> {
  // System bots are the server's, not the organization's: clients meet them in cross_realm_bots.
  const users = await ctx.db.user.findMany({
    where: { realmId: options.viewer.realmId, isSystemBot: false },
    orderBy: { id: 'asc' },
    select: USER_FORMAT_FIELDS,
  });
  const readable = await checkAccess(ctx.db, {
    auth: { user: options.viewer },
    permission: Permission.UserRead,
    ids: users.map((u) => u.id),
  });
  const canSee = (user: FormattableUser) => readable.has(user.id);
  const profiles = options.includeCustomProfileFields
    ? await loadProfileData(
        ctx.db,
        users.filter((u) => !u.isBot && canSee(u)).map((u) => u.id),
      )
    : null;
  const emailDomain = fakeEmailDomain(options.realm, ctx.config);
  return users.flatMap((user) => {
    if (!canSee(user))
      return options.omitInaccessible ? [] : [inaccessibleUser(user.id, emailDomain)];
    return [
      formatUser(user, {
        viewer: options.viewer,
        clientGravatar: options.clientGravatar,
        profileData: profiles?.get(user.id),
      }),
    ];
  });
}
