import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { inTransaction } from '../../events/outbox';
import { realmUserEvent } from '../../protocol/events/realm-user';
import { usersWhoCanAccess } from '../permissions/users';
import { applyEmailChange } from '../users/change-email';
import { checkFullName } from '../users/validate';
import type { LdapPerson } from './ldap-directory';

/**
 * Brings an account in line with its directory entry (Zulip's sync_user_from_ldap): the name
 * and the address, with the `realm_user` updates Zulip sends for each, and the directory
 * username the account is known by from now on. Nothing changes (and nothing is sent) when
 * they already agree. A name the directory gives that Zulip would refuse is left as it was.
 */
export async function syncLdapUser(
  ctx: AppContext,
  input: { realm: Realm; user: User; person: LdapPerson },
): Promise<User> {
  const { realm, user, person } = input;
  let fullName: string | null = null;
  try {
    fullName = person.fullName ? checkFullName(person.fullName) : null;
  } catch {
    ctx.log.warn('auth', 'LDAP name not usable', { userId: user.id });
  }
  const rename = fullName !== null && fullName !== user.fullName;
  const newEmail = person.email !== user.deliveryEmail ? person.email : null;
  if (!rename && !newEmail && user.ldapUsername === person.username) return user;
  return inTransaction(ctx, async (tx, events) => {
    const audience = await usersWhoCanAccess(tx, user);
    if (rename && fullName !== null) {
      await tx.user.update({ where: { id: user.id }, data: { fullName } });
      await events.emit(
        realm.id,
        realmUserEvent({ op: 'update', person: { user_id: user.id, full_name: fullName } }),
        audience,
      );
    }
    if (newEmail) await applyEmailChange(tx, events, { realm, target: user, newEmail, audience });
    return tx.user.update({ where: { id: user.id }, data: { ldapUsername: person.username } });
  });
}
