import type { AppContext } from '../../../libs/core/context';
import { setCanCreateUsers } from '../../../libs/domain/users/set-can-create-users';
import { decryptApiKey } from '../../../libs/domain/users/api-keys';
import { parseFlags, requireFlag } from '../args';
import { findRealm, findUser } from './lookup';

/** `grant-create-users`: lets an administrator (or bot) use `POST /users`; `--revoke` takes it back. */
export async function grantCreateUsersCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'user'], ['revoke']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const target = await findUser(ctx, realm, requireFlag(flags, 'user'));
  const updated = await setCanCreateUsers(ctx, target, flags.revoke !== true);
  return {
    id: updated.id,
    email: updated.email,
    api_key: decryptApiKey(updated.apiKeyCiphertext, ctx.config.secretKey),
    can_create_users: updated.canCreateUsers,
  };
}
