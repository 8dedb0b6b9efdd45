import type { Config } from '../../core/config';
import type { Realm } from '../../../generated/prisma/client';
import { externalMethods, type ExternalMethod } from '../auth/external-methods';
import { ldapEnabled, realmAllows } from '../auth/methods';
import { realmIconUrl, realmUrl } from '../realms/realm-url';
import { FEATURE_LEVEL, SERVER_MERGE_BASE, SERVER_VERSION } from '../version';

/** The five external providers a Zulip client knows by these keys (spec: "named generically"). */
const EXTERNAL_PROVIDERS = ['github', 'gitlab', 'azuread', 'apple', 'google'] as const;

export interface ServerSettings {
  authentication_methods: Record<string, boolean>;
  external_authentication_methods: ExternalMethod[];
  zulip_feature_level: number;
  zulip_version: string;
  zulip_merge_base: string;
  service_feature_level: number;
  service_version: string;
  service_merge_base: string;
  push_notifications_enabled: boolean;
  is_incompatible: boolean;
  email_auth_enabled: boolean;
  require_email_format_usernames: boolean;
  realm_url?: string;
  realm_uri?: string;
  realm_name?: string;
  realm_icon?: string;
  realm_description?: string;
  realm_web_public_access_enabled?: boolean;
}

/**
 * `GET /server_settings`. Organization fields are left out when the host names no organization
 * (the root of a multi-organization server), as the spec says.
 */
export function serverSettings(
  config: Config,
  realm: Realm | null,
  renderedDescription: string,
): ServerSettings {
  const passwordEnabled =
    config.passwordAuthEnabled && (realm === null || realmAllows(realm, 'Email'));
  const ldap = ldapEnabled(config, realm);
  const external = externalMethods(config, realm);
  const authenticationMethods: Record<string, boolean> = {
    // Zulip's password_auth_enabled: a password is asked for by the server's own or by LDAP.
    password: passwordEnabled || ldap,
    dev: false,
    email: passwordEnabled,
    ldap,
    remoteuser: false,
    saml: external.some((method) => method.name.startsWith('saml:')),
    'openid connect': external.some((method) => method.name.startsWith('oidc:')),
  };
  for (const provider of EXTERNAL_PROVIDERS) {
    authenticationMethods[provider] = external.some((method) => method.name === provider);
  }
  const settings: ServerSettings = {
    authentication_methods: authenticationMethods,
    external_authentication_methods: external,
    zulip_feature_level: FEATURE_LEVEL,
    zulip_version: SERVER_VERSION,
    zulip_merge_base: SERVER_MERGE_BASE,
    service_feature_level: FEATURE_LEVEL,
    service_version: SERVER_VERSION,
    service_merge_base: SERVER_MERGE_BASE,
    push_notifications_enabled: config.pushBouncer !== null,
    is_incompatible: false,
    email_auth_enabled: passwordEnabled,
    // Zulip's require_email_format_usernames: LDAP usernames are uids in these two modes.
    require_email_format_usernames: !(
      ldap &&
      (config.ldap?.appendDomain || config.ldap?.emailAttr)
    ),
  };
  if (!realm) return settings;
  const url = realmUrl(realm.stringId, config);
  return {
    ...settings,
    realm_url: url,
    realm_uri: url,
    realm_name: realm.name,
    realm_icon: realmIconUrl(realm),
    realm_description: renderedDescription,
    realm_web_public_access_enabled: config.webPublicStreamsEnabled && realm.enableSpectatorAccess,
  };
}
