/** LDAP sign-in, with Zulip's AUTH_LDAP_* / LDAP_* setting names (zproject/prod_settings). */
export interface LdapConfig {
  /** AUTH_LDAP_SERVER_URI: `ldap://host:389` or `ldaps://host:636`. */
  serverUri: string;
  /** AUTH_LDAP_BIND_DN / _PASSWORD: the account the user search runs as ('' = anonymous). */
  bindDn: string;
  bindPassword: string;
  /** AUTH_LDAP_USER_SEARCH's base, scope and filter; `%(user)s` stands for the escaped username. */
  searchBase: string;
  searchScope: 'base' | 'one' | 'sub';
  searchFilter: string;
  /** AUTH_LDAP_REVERSE_EMAIL_SEARCH's filter (`%(email)s`), for finding a user by address. */
  reverseEmailFilter: string;
  /** AUTH_LDAP_USER_ATTR_MAP: `full_name`, or `first_name` and `last_name`, to attributes. */
  attrMap: { fullName: string | null; firstName: string | null; lastName: string | null };
  /** LDAP_APPEND_DOMAIN: usernames are `uid`s, the address is `<uid>@<domain>`. */
  appendDomain: string | null;
  /** LDAP_EMAIL_ATTR: usernames are `uid`s, the address is this attribute's value. */
  emailAttr: string | null;
  /** AUTH_LDAP_USERNAME_ATTR: the attribute holding the username (found by address). */
  usernameAttr: string;
  /** AUTH_LDAP_START_TLS: upgrade an `ldap://` connection before anything is sent. */
  startTls: boolean;
  /** AUTH_LDAP_CA_CERT_FILE's PEM: the CA the server's certificate is checked against. */
  tlsCa: string | null;
  /** AUTH_LDAP_AUTO_SIGNUP: whether a first sign-in creates the account (default off). */
  autoSignup: boolean;
  timeoutMs: number;
}

/** A SAML identity provider, one entry of Zulip's SOCIAL_AUTH_SAML_ENABLED_IDPS. */
export interface SamlIdpConfig {
  /** The key in SOCIAL_AUTH_SAML_ENABLED_IDPS: names the IdP in URLs and server_settings. */
  name: string;
  /** The IdP's entity ID: the issuer its responses must name. */
  entityId: string;
  /** Its single sign-on URL (HTTP-Redirect binding). */
  url: string;
  /** Its signing certificates, PEM (x509cert or x509cert_path). */
  certs: string[];
  displayName: string;
  displayIcon: string | null;
  attrEmail: string;
  attrFirstName: string;
  attrLastName: string;
  autoSignup: boolean;
  limitToSubdomains: string[] | null;
}

/** The server as a SAML service provider. */
export interface SamlConfig {
  /** SOCIAL_AUTH_SAML_SP_ENTITY_ID: the audience every assertion must name. */
  spEntityId: string;
  /** SOCIAL_AUTH_SAML_SP_PUBLIC_CERT / _PRIVATE_KEY (PEM): published, and signs AuthnRequests. */
  spPublicCert: string | null;
  spPrivateKey: string | null;
  idps: SamlIdpConfig[];
}
