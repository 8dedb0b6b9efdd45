import type { AppContext } from '../../../libs/core/context';
import { createMultiuseInvite } from '../../../libs/domain/invitations/create-multiuse-invite';
import { isRoleCode, Role, ROLE_NAMES } from '../../../libs/domain/users/roles';
import { optionalFlag, parseFlags, requireFlag, UsageError } from '../args';
import { findRealm, findUser } from './lookup';

/**
 * `generate-invite-link`: a reusable invitation link to the organization (Zulip's `manage.py
 * generate_multiuse_invite_link`), made in the name of an administrator who may invite (the
 * referrer the new users see), for the role given (member by default) and the organization's
 * default channels. It expires after `--expires-in-minutes` (default INVITATION_LINK_VALIDITY_MINUTES;
 * `never` for no end).
 */
export async function generateInviteLinkCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'referred-by', 'role', 'expires-in-minutes']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const actor = await findUser(ctx, realm, requireFlag(flags, 'referred-by'));
  const roleText = optionalFlag(flags, 'role');
  const role =
    roleText === undefined ? Role.MEMBER : (ROLE_NAMES[roleText.toLowerCase()] ?? Number(roleText));
  if (!isRoleCode(role)) throw new UsageError(`Unknown role '${roleText}'`);
  const expiry = optionalFlag(flags, 'expires-in-minutes');
  let expiresInMinutes: number | null | undefined;
  if (expiry === 'never') expiresInMinutes = null;
  else if (expiry !== undefined) {
    expiresInMinutes = Number(expiry);
    if (!Number.isInteger(expiresInMinutes) || expiresInMinutes <= 0) {
      throw new UsageError('--expires-in-minutes must be a positive whole number or never');
    }
  }
  const url = await createMultiuseInvite(ctx, {
    actor,
    realm,
    expiresInMinutes,
    targets: { role, streamIds: [], groupIds: [], includeRealmDefaultSubscriptions: true },
  });
  return { realm: realm.stringId, invite_link: url, role, referred_by: actor.email };
}
