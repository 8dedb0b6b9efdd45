import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { ApiError } from '../../core/errors';
import { deactivateUser } from '../users/deactivate-user';
import { withDirectory } from './ldap-directory';
import { ldapEnabled } from './methods';
import { syncLdapUser } from './sync-ldap-user';

export interface LdapSyncReport {
  checked: number;
  updated: string[];
  deactivated: string[];
  /** Accounts that stayed as they were, with why (the only owner, an address already taken). */
  skipped: { email: string; reason: string }[];
}

/**
 * Zulip's sync_ldap_user_data: every active human of the organizations that sign in with LDAP is
 * looked up in the directory (by the username they signed in with, else by address); found, the
 * account takes the directory's name and address; not found, it is deactivated. One
 * connection, bound as AUTH_LDAP_BIND_DN, serves the whole run.
 */
export async function syncLdapUsers(
  ctx: AppContext,
  input: { realms: Realm[]; dryRun: boolean },
): Promise<LdapSyncReport> {
  const config = ctx.config.ldap;
  if (!config) throw new Error('LDAP is not configured (AUTH_LDAP_SERVER_URI)');
  const report: LdapSyncReport = { checked: 0, updated: [], deactivated: [], skipped: [] };
  const realms = input.realms.filter(
    (realm) => !realm.deactivated && ldapEnabled(ctx.config, realm),
  );
  await withDirectory(config, async (directory) => {
    for (const realm of realms) {
      const users = await ctx.db.user.findMany({
        where: { realmId: realm.id, isActive: true, isBot: false },
        orderBy: { id: 'asc' },
      });
      for (const user of users) {
        report.checked++;
        const person = user.ldapUsername
          ? await directory.findByUsername(user.ldapUsername)
          : await directory.findByEmail(user.deliveryEmail);
        try {
          if (!person) {
            if (!input.dryRun) {
              await deactivateUser(ctx, {
                actor: null,
                realm,
                target: user,
                notificationComment: null,
              });
            }
            report.deactivated.push(user.deliveryEmail);
            continue;
          }
          const changed =
            person.email !== user.deliveryEmail ||
            (person.fullName !== '' && person.fullName !== user.fullName);
          // Also records the directory username of an account found by its address.
          if (!input.dryRun) await syncLdapUser(ctx, { realm, user, person });
          if (changed) report.updated.push(user.deliveryEmail);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          report.skipped.push({ email: user.deliveryEmail, reason: err.message });
        }
      }
    }
  });
  return report;
}
