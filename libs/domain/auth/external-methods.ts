import type { Realm } from '../../../generated/prisma/client';
import type { Config, GithubConfig, OidcIdpConfig } from '../../core/config';
import { realmAllows } from './methods';
import { samlMethods } from './saml-methods';

/** One entry of server_settings' `external_authentication_methods`, as Zulip lists them. */
export interface ExternalMethod {
  name: string;
  display_name: string;
  display_icon: string | null;
  login_url: string;
  signup_url: string;
}

/** Whether an OpenID Connect provider serves this organization (configured, allowed by it). */
export function oidcIdpFor(
  config: Pick<Config, 'oidcIdps'>,
  realm: Pick<Realm, 'stringId' | 'authenticationMethods'>,
  name: string,
): OidcIdpConfig | null {
  const idp = config.oidcIdps.find((candidate) => candidate.name === name);
  if (!idp || !realmAllows(realm, 'OpenID Connect')) return null;
  if (idp.limitToSubdomains && !idp.limitToSubdomains.includes(realm.stringId)) return null;
  return idp;
}

/** GitHub's settings when "Log in with GitHub" serves this organization. */
export function githubFor(
  config: Pick<Config, 'github'>,
  realm: Pick<Realm, 'authenticationMethods'>,
): GithubConfig | null {
  return config.github && realmAllows(realm, 'GitHub') ? config.github : null;
}

/** The external methods an organization offers (all configured ones without an organization). */
export function externalMethods(
  config: Pick<Config, 'oidcIdps' | 'github' | 'saml'>,
  realm: Pick<Realm, 'stringId' | 'authenticationMethods'> | null,
): ExternalMethod[] {
  const methods: ExternalMethod[] = config.oidcIdps
    .filter((idp) => realm === null || oidcIdpFor(config, realm, idp.name) !== null)
    .map((idp) => ({
      name: `oidc:${idp.name}`,
      display_name: idp.displayName,
      display_icon: idp.displayIcon,
      login_url: `/accounts/login/social/oidc/${idp.name}`,
      signup_url: `/accounts/register/social/oidc/${idp.name}`,
    }));
  if (config.github && (realm === null || githubFor(config, realm))) {
    methods.push({
      name: 'github',
      display_name: 'GitHub',
      display_icon: null,
      login_url: '/accounts/login/social/github',
      signup_url: '/accounts/register/social/github',
    });
  }
  // SAML first, as Zulip orders them (its SAML backend sorts highest).
  return [...samlMethods(config, realm), ...methods];
}
