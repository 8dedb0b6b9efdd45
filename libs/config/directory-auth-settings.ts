import Joi from 'joi';
import { readFileSync } from 'node:fs';
import type { LdapConfig, SamlConfig, SamlIdpConfig } from '../core/directory-auth-config';
import { idpEntries, idpSchema, type IdpEntry } from './idp-map';

/** The LDAP and SAML settings, under Zulip's names, validated with the rest of the environment. */
export const directoryAuthSchema = {
  AUTH_LDAP_SERVER_URI: Joi.string()
    .uri({ scheme: ['ldap', 'ldaps'] })
    .allow('')
    .default(''),
  AUTH_LDAP_BIND_DN: Joi.string().allow('').default(''),
  AUTH_LDAP_BIND_PASSWORD: Joi.string().allow('').default(''),
  AUTH_LDAP_USER_SEARCH_BASE: Joi.string().allow('').default(''),
  AUTH_LDAP_USER_SEARCH_SCOPE: Joi.string().valid('base', 'one', 'sub').default('sub'),
  AUTH_LDAP_USER_SEARCH_FILTER: Joi.string()
    .pattern(/^\(.*%\(user\)s.*\)$/)
    .default('(uid=%(user)s)'),
  AUTH_LDAP_REVERSE_EMAIL_SEARCH_FILTER: Joi.string()
    .pattern(/^\(.*%\(email\)s.*\)$/)
    .allow(''),
  AUTH_LDAP_USER_ATTR_MAP: Joi.string().default('{"full_name": "cn"}'),
  AUTH_LDAP_START_TLS: Joi.boolean().default(false),
  AUTH_LDAP_CA_CERT_FILE: Joi.string().allow('').default(''),
  AUTH_LDAP_AUTO_SIGNUP: Joi.boolean().default(false),
  AUTH_LDAP_TIMEOUT_SECONDS: Joi.number().positive().default(10),
  AUTH_LDAP_USERNAME_ATTR: Joi.string()
    .pattern(/^[A-Za-z][A-Za-z0-9-]*$/)
    .default('uid'),
  LDAP_APPEND_DOMAIN: Joi.string().hostname().allow('').default(''),
  LDAP_EMAIL_ATTR: Joi.string()
    .pattern(/^[A-Za-z][A-Za-z0-9-]*$/)
    .allow('')
    .default(''),
  SOCIAL_AUTH_SAML_ENABLED_IDPS: Joi.string().allow('').default(''),
  SOCIAL_AUTH_SAML_SP_ENTITY_ID: Joi.string().allow('').default(''),
  SOCIAL_AUTH_SAML_SP_PUBLIC_CERT: Joi.string().allow('').default(''),
  SOCIAL_AUTH_SAML_SP_PRIVATE_KEY: Joi.string().allow('').default(''),
};

type Values = { [K in keyof typeof directoryAuthSchema]: string | boolean | number | undefined };

const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** A PEM given inline, or the path of a file holding it (as Zulip reads /etc/zulip/saml/...). */
function pemOrFile(value: string, what: string): string {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  try {
    return readFileSync(value, 'utf8');
  } catch {
    throw new Error(`${what}: cannot read "${value}"`);
  }
}

/** Zulip's `x509cert` is the certificate's base64 body; a full PEM is taken as is. */
function certificatePem(body: string): string {
  if (body.includes('-----BEGIN')) return body;
  const flat = body.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${flat.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
}

interface AttrMap {
  full_name?: string;
  first_name?: string;
  last_name?: string;
}

const attrMapSchema = Joi.object<AttrMap>({
  full_name: Joi.string(),
  first_name: Joi.string(),
  last_name: Joi.string(),
})
  .or('full_name', 'first_name')
  .and('first_name', 'last_name');

export function parseLdap(value: Values): LdapConfig | null {
  const uri = str(value.AUTH_LDAP_SERVER_URI);
  if (!uri) return null;
  if (!str(value.AUTH_LDAP_USER_SEARCH_BASE)) {
    throw new Error('AUTH_LDAP_USER_SEARCH_BASE is required with AUTH_LDAP_SERVER_URI');
  }
  const appendDomain = str(value.LDAP_APPEND_DOMAIN).toLowerCase() || null;
  const emailAttr = str(value.LDAP_EMAIL_ATTR) || null;
  if (appendDomain && emailAttr) {
    throw new Error('LDAP_APPEND_DOMAIN and LDAP_EMAIL_ATTR cannot both be set');
  }
  let map: unknown;
  try {
    map = JSON.parse(str(value.AUTH_LDAP_USER_ATTR_MAP));
  } catch {
    throw new Error('AUTH_LDAP_USER_ATTR_MAP is not JSON');
  }
  const checked = attrMapSchema.validate(map);
  if (checked.error) throw new Error(`AUTH_LDAP_USER_ATTR_MAP: ${checked.error.message}`);
  const attrs = checked.value;
  const caFile = str(value.AUTH_LDAP_CA_CERT_FILE);
  const reverse =
    str(value.AUTH_LDAP_REVERSE_EMAIL_SEARCH_FILTER) ||
    (emailAttr
      ? `(${emailAttr}=%(email)s)`
      : str(value.AUTH_LDAP_USER_SEARCH_FILTER).replace('%(user)s', '%(email)s'));
  return {
    serverUri: uri,
    bindDn: str(value.AUTH_LDAP_BIND_DN),
    bindPassword: str(value.AUTH_LDAP_BIND_PASSWORD),
    searchBase: str(value.AUTH_LDAP_USER_SEARCH_BASE),
    searchScope: str(value.AUTH_LDAP_USER_SEARCH_SCOPE) as LdapConfig['searchScope'],
    searchFilter: str(value.AUTH_LDAP_USER_SEARCH_FILTER),
    reverseEmailFilter: reverse,
    attrMap: {
      fullName: attrs.full_name ?? null,
      firstName: attrs.first_name ?? null,
      lastName: attrs.last_name ?? null,
    },
    appendDomain,
    emailAttr,
    usernameAttr: str(value.AUTH_LDAP_USERNAME_ATTR),
    startTls: value.AUTH_LDAP_START_TLS === true,
    tlsCa: caFile ? pemOrFile(caFile, 'AUTH_LDAP_CA_CERT_FILE') : null,
    autoSignup: value.AUTH_LDAP_AUTO_SIGNUP === true,
    timeoutMs: Number(value.AUTH_LDAP_TIMEOUT_SECONDS) * 1000,
  };
}

interface SamlIdpEntry extends IdpEntry {
  entity_id: string;
  url: string;
  x509cert?: string;
  x509cert_path?: string;
  attr_email: string;
  attr_first_name: string;
  attr_last_name: string;
  attr_user_permanent_id?: string;
  attr_username?: string;
}

const samlIdpSchema = idpSchema<SamlIdpEntry>({
  entity_id: Joi.string().required(),
  url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .required(),
  x509cert: Joi.string(),
  x509cert_path: Joi.string(),
  attr_email: Joi.string().default('email'),
  attr_first_name: Joi.string().default('first_name'),
  attr_last_name: Joi.string().default('last_name'),
  // Zulip's keys for the account's identity: here the account is always found by attr_email.
  attr_user_permanent_id: Joi.string(),
  attr_username: Joi.string(),
}).xor('x509cert', 'x509cert_path');

function parseSamlIdps(text: string): SamlIdpConfig[] {
  return idpEntries('SOCIAL_AUTH_SAML_ENABLED_IDPS', 'SAML IdP', text, samlIdpSchema).map(
    ([common, value]) => {
      const cert =
        value.x509cert ??
        pemOrFile(value.x509cert_path ?? '', `SAML IdP "${common.name}" x509cert_path`);
      return {
        ...common,
        entityId: value.entity_id,
        url: value.url,
        certs: [certificatePem(cert)],
        attrEmail: value.attr_email,
        attrFirstName: value.attr_first_name,
        attrLastName: value.attr_last_name,
      };
    },
  );
}

/** SAML is on when SOCIAL_AUTH_SAML_ENABLED_IDPS names an IdP; `origin` is the default SP ID. */
export function parseSaml(value: Values, origin: string): SamlConfig | null {
  const text = str(value.SOCIAL_AUTH_SAML_ENABLED_IDPS);
  if (text.trim() === '') return null;
  const idps = parseSamlIdps(text);
  if (idps.length === 0) return null;
  const cert = str(value.SOCIAL_AUTH_SAML_SP_PUBLIC_CERT);
  const key = str(value.SOCIAL_AUTH_SAML_SP_PRIVATE_KEY);
  if (Boolean(cert) !== Boolean(key)) {
    throw new Error('SOCIAL_AUTH_SAML_SP_PUBLIC_CERT and _PRIVATE_KEY go together');
  }
  return {
    spEntityId: str(value.SOCIAL_AUTH_SAML_SP_ENTITY_ID) || origin,
    spPublicCert: cert ? pemOrFile(cert, 'SOCIAL_AUTH_SAML_SP_PUBLIC_CERT') : null,
    spPrivateKey: key ? pemOrFile(key, 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY') : null,
    idps,
  };
}

/** Both parsed, for the boot check and for the Config object. */
export function parseDirectoryAuth(
  value: Values,
  origin: string,
): { ldap: LdapConfig | null; saml: SamlConfig | null } {
  return { ldap: parseLdap(value), saml: parseSaml(value, origin) };
}
