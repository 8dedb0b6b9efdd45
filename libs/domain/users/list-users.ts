import type { Config } from '../../core/config';
import type { Db, Tx } from '../../db/client';
import type { Realm, User } from '../../../generated/prisma/client';
import { checkAccess, Permission } from '../permissions/access';
import { formatUser, type ApiUser, type FormattableUser } from './format-user';
import { fakeEmailDomain, inaccessibleUser } from './user-access';
import { formatForEveryone, readUserListRows, type UserListRows } from './user-list-rows';

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
  /** The organization's rows, when the caller has them (user-list-rows.ts); else read here. */
  rows?: UserListRows;
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
  const { users, profiles } =
    options.rows ?? (await readUserListRows(ctx.db, options.viewer.realmId));
  const readable = await checkAccess(ctx.db, {
    auth: { user: options.viewer },
    permission: Permission.UserRead,
    ids: users.map((u) => u.id),
    users,
  });
  const canSee = (user: FormattableUser) => readable.has(user.id);
  if (options.rows && readable.size === users.length)
    return formatForEveryone(options.rows, options);
  const emailDomain = fakeEmailDomain(options.realm, ctx.config);
  return users.flatMap((user) => {
    if (!canSee(user))
      return options.omitInaccessible ? [] : [inaccessibleUser(user.id, emailDomain)];
    return [
      formatUser(user, {
        viewer: options.viewer,
        clientGravatar: options.clientGravatar,
        profileData: options.includeCustomProfileFields ? profiles.get(user.id) : undefined,
      }),
    ];
  });
}
