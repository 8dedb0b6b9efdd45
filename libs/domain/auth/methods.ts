import type { Realm } from '../../../generated/prisma/client';

/**
 * The organization's own switch for a method (PATCH /realm `authentication_methods`), keyed by
 * Zulip's names ("Email", "LDAP", "SAML", "OpenID Connect", "GitHub", ...). A method the
 * organization never switched is on: the server's configuration decides whether it exists.
 */
export function realmAllows(realm: Pick<Realm, 'authenticationMethods'>, method: string): boolean {
  const stored = realm.authenticationMethods;
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return true;
  return (stored as Record<string, unknown>)[method] !== false;
}

/** Whether passwords are checked against LDAP here: configured, and on for the organization. */
export function ldapEnabled(
  config: { ldap: unknown },
  realm: Pick<Realm, 'authenticationMethods'> | null,
): boolean {
  return config.ldap !== null && (realm === null || realmAllows(realm, 'LDAP'));
}
