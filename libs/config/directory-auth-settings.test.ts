import { ConfigError, loadConfig } from './load-config';

const LDAP = {
  AUTH_LDAP_SERVER_URI: 'ldaps://ldap.acme.example',
  AUTH_LDAP_USER_SEARCH_BASE: 'ou=people,dc=acme,dc=example',
};

describe('LDAP settings', () => {
  it('are off without AUTH_LDAP_SERVER_URI, and take Zulip-like defaults with it', () => {
    expect(loadConfig({}).ldap).toBeNull();
    expect(loadConfig(LDAP).ldap).toMatchObject({
      serverUri: 'ldaps://ldap.acme.example',
      searchScope: 'sub',
      searchFilter: '(uid=%(user)s)',
      reverseEmailFilter: '(uid=%(email)s)',
      attrMap: { fullName: 'cn', firstName: null, lastName: null },
      appendDomain: null,
      emailAttr: null,
      usernameAttr: 'uid',
      startTls: false,
      autoSignup: false,
    });
    expect(loadConfig({ ...LDAP, LDAP_EMAIL_ATTR: 'mail' }).ldap?.reverseEmailFilter).toBe(
      '(mail=%(email)s)',
    );
  });

  it.each([
    [{ AUTH_LDAP_SERVER_URI: 'http://ldap.acme.example' }],
    [{ AUTH_LDAP_USER_SEARCH_BASE: '' }],
    [{ AUTH_LDAP_USER_SEARCH_FILTER: '(uid=*)' }],
    [{ LDAP_APPEND_DOMAIN: 'acme.example', LDAP_EMAIL_ATTR: 'mail' }],
    [{ AUTH_LDAP_USER_ATTR_MAP: 'not json' }],
    [{ AUTH_LDAP_USER_ATTR_MAP: '{"first_name": "givenName"}' }],
    [{ AUTH_LDAP_CA_CERT_FILE: '/nonexistent/ca.pem' }],
  ])('refuses %j at boot', (bad) => {
    expect(() => loadConfig({ ...LDAP, ...bad })).toThrow(ConfigError);
  });
});

const IDP = {
  entity_id: 'https://idp.example/',
  url: 'https://idp.example/sso',
  x509cert: 'MIIB',
  display_name: 'IdP',
};

describe('SAML settings', () => {
  it('parse Zulip’s SOCIAL_AUTH_SAML_ENABLED_IDPS, the SP entity ID defaulting to the server', () => {
    const saml = loadConfig({
      EXTERNAL_HOST: 'chat.acme.example',
      EXTERNAL_SCHEME: 'https',
      SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({ okta: IDP }),
    }).saml;
    expect(saml?.spEntityId).toBe('https://chat.acme.example');
    expect(saml?.idps[0]).toMatchObject({
      name: 'okta',
      attrEmail: 'email',
      autoSignup: false,
      certs: ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'],
    });
  });

  it('leaves SAML off for an empty map of IdPs, as Zulip does', () => {
    expect(loadConfig({ SOCIAL_AUTH_SAML_ENABLED_IDPS: '{}' }).saml).toBeNull();
  });

  it.each([
    [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: '{' }],
    [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({ 'Bad Name': IDP }) }],
    [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({ okta: { ...IDP, x509cert: undefined } }) }],
    [{ SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({ okta: { ...IDP, typo: 1 } }) }],
    [
      {
        SOCIAL_AUTH_SAML_ENABLED_IDPS: JSON.stringify({ okta: IDP }),
        SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: '-----BEGIN CERTIFICATE-----',
      },
    ],
  ])('refuses %j at boot', (bad) => {
    expect(() => loadConfig(bad)).toThrow(ConfigError);
  });
});
