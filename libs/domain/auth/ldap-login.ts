import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { ApiError, userDeactivated } from '../../core/errors';
import { externalAuthRefused, externalLogin } from './external-login';
import { LdapUnavailable, loginUsername, withDirectory, type LdapPerson } from './ldap-directory';
import { syncLdapUser } from './sync-ldap-user';

const directoryDown = () =>
  new ApiError(
    'AUTHENTICATION_FAILED',
    'The directory (LDAP) cannot be reached.',
    {},
    'unauthenticated',
  );

/**
 * A password sign-in through LDAP (Zulip's ZulipLDAPAuthBackend): the person is found by
 * AUTH_LDAP_USER_SEARCH as AUTH_LDAP_BIND_DN, then the password is checked by binding as them.
 * Null when the directory does not know the username or the password is wrong, so the caller
 * counts a failed attempt (and may try the server's own passwords). The account is found by its
 * directory username, else by the directory's address (the operator's directory vouches for
 * it), and its name and address follow the directory at each sign-in. A first sign-in creates
 * an account only with AUTH_LDAP_AUTO_SIGNUP, under the organization's rules.
 */
export async function ldapLogin(
  ctx: AppContext,
  input: { realm: Realm; username: string; password: string },
): Promise<User | null> {
  const config = ctx.config.ldap;
  if (!config) return null;
  const username = loginUsername(config, input.username);
  if (username === null || username === '') return null;
  let person: LdapPerson | null;
  try {
    person = await withDirectory(config, async (directory) => {
      const found = await directory.findByUsername(username);
      if (!found) return null;
      return (await directory.checkPassword(found.dn, input.password)) ? found : null;
    });
  } catch (err) {
    if (!(err instanceof LdapUnavailable)) throw err;
    ctx.log.warn('auth', 'LDAP unavailable', { error: err.message });
    throw directoryDown();
  }
  if (!person) return null;
  if (!person.email.includes('@')) {
    throw externalAuthRefused('The directory has no email address for this account.');
  }
  const { realm } = input;
  const existing =
    (await ctx.db.user.findFirst({
      where: { realmId: realm.id, ldapUsername: person.username, isBot: false },
    })) ??
    (await ctx.db.user.findFirst({
      where: { realmId: realm.id, deliveryEmail: person.email, isBot: false },
    }));
  if (existing) {
    if (!existing.isActive) throw userDeactivated();
    const synced = await syncLdapUser(ctx, { realm, user: existing, person });
    return ctx.db.user.update({ where: { id: synced.id }, data: { lastLogin: new Date() } });
  }
  const created = await externalLogin(ctx, {
    realm,
    identity: {
      email: person.email,
      emailVerified: true,
      fullName: person.fullName,
      autoSignup: config.autoSignup,
    },
  });
  return ctx.db.user.update({
    where: { id: created.id },
    data: { ldapUsername: person.username },
  });
}
