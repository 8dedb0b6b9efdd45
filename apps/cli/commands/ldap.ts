import type { AppContext } from '../../../libs/core/context';
import { syncLdapUsers } from '../../../libs/domain/auth/sync-ldap-users';
import { optionalFlag, parseFlags } from '../args';
import { findRealm } from './lookup';

/**
 * Zulip's sync_ldap_user_data: names and addresses from the directory, the accounts of people
 * no longer in it deactivated, and those it deactivated reactivated once they are back. Every
 * organization, or one with --realm; --dry-run only reports.
 */
export async function syncLdapUsersCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['realm'], ['dry-run']);
  const subdomain = optionalFlag(flags, 'realm');
  const realms =
    subdomain === undefined
      ? await ctx.db.realm.findMany({ orderBy: { id: 'asc' } })
      : [await findRealm(ctx, subdomain)];
  const report = await syncLdapUsers(ctx, { realms, dryRun: flags['dry-run'] === true });
  return { dry_run: flags['dry-run'] === true, ...report };
}
