import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { ApiError, realmDeactivated, userDeactivated } from '../../core/errors';
import { realmEmailRule } from '../realm-domains/email-restrictions';
import { createUser } from '../users/create-user';
import { Role } from '../users/roles';
import { normalizeEmail } from '../users/validate';
import { at } from '../../core/at';

/** What an external provider vouched for, after its own checks passed. */
export interface ExternalIdentity {
  email: string;
  /** Only a provider-verified address may sign in to or create an account. */
  emailVerified: boolean;
  fullName: string;
  /** Whether a first sign-in creates the account (per provider; off by default). */
  autoSignup: boolean;
}

export const externalAuthRefused = (msg: string) =>
  new ApiError('AUTHENTICATION_FAILED', msg, {}, 'unauthenticated');

/**
 * The organization's rules, the same for every external method: a verified address only;
 * deactivated organizations and users refused; an existing account is found by that address
 * (linked only so); otherwise one is created only where the provider allows sign-up, the
 * organization is not invitation-only, and the address passes its domain restrictions.
 */
export async function externalLogin(
  ctx: AppContext,
  input: { realm: Realm; identity: ExternalIdentity },
): Promise<User> {
  const { realm, identity } = input;
  if (realm.deactivated) throw realmDeactivated();
  if (!identity.emailVerified) {
    throw externalAuthRefused('Your identity provider has not verified this email address.');
  }
  const email = normalizeEmail(identity.email);
  const existing = await ctx.db.user.findFirst({
    where: { realmId: realm.id, deliveryEmail: email, isBot: false },
  });
  if (existing) {
    if (!existing.isActive) throw userDeactivated();
    return ctx.db.user.update({ where: { id: existing.id }, data: { lastLogin: new Date() } });
  }
  if (!identity.autoSignup) {
    throw externalAuthRefused(`There is no account for ${email} in this organization.`);
  }
  if (realm.inviteRequired) {
    throw externalAuthRefused('This organization requires an invitation to join.');
  }
  const refusal = (await realmEmailRule(ctx.db, realm))(email);
  if (refusal) {
    throw externalAuthRefused(`The email ${email} is not allowed to join this organization.`);
  }
  const { user } = await createUser(ctx, {
    realm,
    email,
    fullName: identity.fullName.trim() || at(email.split('@'), 0),
    role: Role.MEMBER,
  });
  return ctx.db.user.update({ where: { id: user.id }, data: { lastLogin: new Date() } });
}
