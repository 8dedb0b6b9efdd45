import type { AppContext } from '../../../libs/core/context';
import { issueScimToken, revokeScimClient } from '../../../libs/domain/scim/scim-clients';
import { realmUrl } from '../../../libs/domain/realms/realm-url';
import { CommandFailed, parseFlags, requireFlag, UsageError } from '../args';
import { findRealm } from './lookup';

const clientName = (value: string) => {
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(value)) {
    throw new UsageError('--client must be [a-z0-9_-], at most 40 characters (e.g. okta)');
  }
  return value;
};

/**
 * An organization's SCIM client and its bearer token (Zulip's SCIM_CONFIG entry): run again for
 * the same client to replace the token. The token is printed once; only its hash is kept.
 * `--given-family-names` for clients such as Okta that send and expect name.givenName and
 * name.familyName instead of name.formatted (Zulip's name_formatted_included: false).
 */
export async function createScimTokenCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'client'], ['given-family-names']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const { client, token } = await issueScimToken(ctx, {
    realm,
    name: clientName(requireFlag(flags, 'client')),
    nameFormattedIncluded: flags['given-family-names'] !== true,
  });
  return {
    realm: realm.stringId,
    client: client.name,
    base_url: `${realmUrl(realm.stringId, ctx.config)}/scim/v2`,
    bearer_token: token,
  };
}

export async function revokeScimTokenCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm', 'client']);
  const realm = await findRealm(ctx, requireFlag(flags, 'realm'));
  const name = clientName(requireFlag(flags, 'client'));
  if (!(await revokeScimClient(ctx, realm, name))) {
    throw new CommandFailed(`no SCIM client ${name} in ${realm.stringId || '(root)'}`);
  }
  return { realm: realm.stringId, client: name, revoked: true };
}
