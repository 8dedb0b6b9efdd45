import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { ApiError } from '../../core/errors';
import { deactivateUser } from '../users/deactivate-user';
import { reactivateUser } from '../users/reactivate-user';
import { withDirectory, type Directory } from './ldap-directory';
import { ldapEnabled } from './methods';
import { syncLdapUser } from './sync-ldap-user';

export interface LdapSyncReport {
  checked: number;
  updated: string[];
  deactivated: string[];
  /** Accounts the sync had deactivated whose people are in the directory again. */
  reactivated: string[];
  /** Accounts that stayed as they were, with why (the only owner, an address already taken). */
  skipped: { email: string; reason: string }[];
}

/**
 * Zulip's sync_ldap_user_data: every active human of the organizations that sign in with LDAP is
 * looked up in the directory (by the username they signed in with, else by address); found, the
 * account takes the directory's name and address; not found, it is deactivated. Accounts an
 * earlier run deactivated that way are looked up too, and reactivated once the directory lists
 * them again; an administrator's deactivation is left alone. One connection, bound as
 * AUTH_LDAP_BIND_DN, serves the whole run.
 */
export async function syncLdapUsers(
  ctx: AppContext,
  input: { realms: Realm[]; dryRun: boolean },
): Promise<LdapSyncReport> {
  const config = ctx.config.ldap;
  if (!config) throw new Error('LDAP is not configured (AUTH_LDAP_SERVER_URI)');
  const report: LdapSyncReport = {
    checked: 0,
    updated: [],
    deactivated: [],
    reactivated: [],
    skipped: [],
  };
  const realms = input.realms.filter(
    (realm) => !realm.deactivated && ldapEnabled(ctx.config, realm),
  );
  await withDirectory(config, async (directory) => {
    for (const realm of realms) {
      const users = await ctx.db.user.findMany({
        where: {
          realmId: realm.id,
          isBot: false,
          OR: [{ isActive: true }, { ldapSyncDeactivated: true }],
        },
        orderBy: { id: 'asc' },
      });
      for (const user of users) {
        report.checked++;
        try {
          await syncOne(ctx, { directory, realm, user, dryRun: input.dryRun, report });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          report.skipped.push({ email: user.deliveryEmail, reason: err.message });
        }
      }
    }
  });
  return report;
}

/** One account against its directory entry: deactivated, reactivated, renamed, or as it was. */
async function syncOne(
  ctx: AppContext,
  input: {
    directory: Directory;
    realm: Realm;
    user: User;
    dryRun: boolean;
    report: LdapSyncReport;
  },
): Promise<void> {
  const { directory, realm, dryRun, report } = input;
  let user = input.user;
  const person = user.ldapUsername
    ? await directory.findByUsername(user.ldapUsername)
    : await directory.findByEmail(user.deliveryEmail);
  if (!person) {
    // Still gone: it stays as the last run left it.
    if (!user.isActive) return;
    if (!dryRun) {
      await deactivateUser(ctx, {
        actor: null,
        realm,
        target: user,
        notificationComment: null,
        leftDirectory: true,
      });
    }
    report.deactivated.push(user.deliveryEmail);
    return;
  }
  if (!user.isActive) {
    if (!dryRun) {
      await reactivateUser(ctx, { actor: null, realm, target: user });
      user = await ctx.db.user.findUniqueOrThrow({ where: { id: user.id } });
    }
    report.reactivated.push(user.deliveryEmail);
  }
  const changed =
    person.email !== user.deliveryEmail ||
    (person.fullName !== '' && person.fullName !== user.fullName);
  // Also records the directory username of an account found by its address.
  if (!dryRun) await syncLdapUser(ctx, { realm, user, person });
  if (changed) report.updated.push(user.deliveryEmail);
}
