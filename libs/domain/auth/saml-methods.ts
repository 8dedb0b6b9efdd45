import type { Realm } from '../../../generated/prisma/client';
import type { Config } from '../../core/config';
import type { SamlIdpConfig } from '../../core/directory-auth-config';
import type { ExternalMethod } from './external-methods';
import { realmAllows } from './methods';

/** Whether a SAML IdP serves this organization (configured, allowed by it). */
export function samlIdpFor(
  config: Pick<Config, 'saml'>,
  realm: Pick<Realm, 'stringId' | 'authenticationMethods'>,
  name: string,
): SamlIdpConfig | null {
  const idp = config.saml?.idps.find((candidate) => candidate.name === name);
  if (!idp || !realmAllows(realm, 'SAML')) return null;
  if (idp.limitToSubdomains && !idp.limitToSubdomains.includes(realm.stringId)) return null;
  return idp;
}

/** server_settings' entries for the SAML IdPs, named `saml:<name>` as Zulip names them. */
export function samlMethods(
  config: Pick<Config, 'saml'>,
  realm: Pick<Realm, 'stringId' | 'authenticationMethods'> | null,
): ExternalMethod[] {
  return (config.saml?.idps ?? [])
    .filter((idp) => realm === null || samlIdpFor(config, realm, idp.name) !== null)
    .map((idp) => ({
      name: `saml:${idp.name}`,
      display_name: idp.displayName,
      display_icon: idp.displayIcon,
      login_url: `/accounts/login/social/saml/${idp.name}`,
      signup_url: `/accounts/register/social/saml/${idp.name}`,
    }));
}
