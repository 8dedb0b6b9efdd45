import disposableDomains from 'disposable-email-domains';
import type { Realm } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';

/** Why an organization refuses an address for a new account. */
export type EmailRefusal = 'outside-domains' | 'disposable' | 'contains-plus';

const DISPOSABLE = new Set(disposableDomains);

const splitAddress = (email: string) => {
  const at = email.lastIndexOf('@');
  return { local: email.slice(0, at), domain: email.slice(at + 1).toLowerCase() };
};

export type RealmEmailRule = (email: string) => EmailRefusal | null;

/**
 * The organization's rule for new accounts' addresses, as Zulip applies it to invitations and
 * sign-ups: with `emails_restricted_to_domains`, only its realm domains (and their subdomains where
 * `allow_subdomains`) and no '+' in the local part; otherwise, with
 * `disallow_disposable_email_addresses`, no throwaway-mail domains. Read the domains once, then
 * check many addresses.
 */
export async function realmEmailRule(
  db: Db | Tx,
  realm: Pick<Realm, 'id' | 'emailsRestrictedToDomains' | 'disallowDisposableEmailAddresses'>,
): Promise<RealmEmailRule> {
  if (!realm.emailsRestrictedToDomains) {
    if (!realm.disallowDisposableEmailAddresses) return () => null;
    return (email) => (DISPOSABLE.has(splitAddress(email).domain) ? 'disposable' : null);
  }
  // The organization's own short list replaces the disposable check, as in Zulip.
  const rows = await db.realmDomain.findMany({ where: { realmId: realm.id } });
  const exact = new Set(rows.map((r) => r.domain));
  const parents = new Set(rows.filter((r) => r.allowSubdomains).map((r) => r.domain));
  return (email) => {
    const { local, domain } = splitAddress(email);
    if (local.includes('+')) return 'contains-plus';
    if (exact.has(domain)) return null;
    const labels = domain.split('.');
    for (let i = 1; i < labels.length; i++) {
      if (parents.has(labels.slice(i).join('.'))) return null;
    }
    return 'outside-domains';
  };
}

/** Per-address messages in `POST /invites` errors (Zulip's validate_email_is_valid). */
export const INVITE_REFUSAL_TEXT: Record<EmailRefusal, string> = {
  'outside-domains': 'Outside your domain.',
  disposable: 'Please use your real email address.',
  'contains-plus': 'Email addresses containing + are not allowed.',
};

/** Sign-up messages (Zulip's registration form). */
export function signupRefusalText(refusal: EmailRefusal, email: string): string {
  switch (refusal) {
    case 'outside-domains':
      return `Your email address, ${email}, is not in one of the domains that are allowed to register for accounts in this organization.`;
    case 'disposable':
      return 'Please use your real email address.';
    case 'contains-plus':
      return 'Email addresses containing + are not allowed in this organization.';
  }
}
