import {
  Client,
  Filter,
  InvalidCredentialsError,
  SizeLimitExceededError,
  type Entry,
} from 'ldapts';
import type { LdapConfig } from '../../core/directory-auth-config';

/** A person as the directory describes them, in the terms an account needs. */
export interface LdapPerson {
  dn: string;
  /** What they sign in with: their `uid` (LDAP_APPEND_DOMAIN, LDAP_EMAIL_ATTR) or their address. */
  username: string;
  email: string;
  fullName: string;
}

/** The directory refused or could not be reached (as opposed to: no such person). */
export class LdapUnavailable extends Error {}

/** Zulip's `%(user)s` / `%(email)s` placeholders, filled with RFC 4515-escaped values. */
export function fillFilter(template: string, name: 'user' | 'email', value: string): string {
  return template.split(`%(${name})s`).join(Filter.escape(value));
}

const first = (entry: Entry, attribute: string | null): string => {
  if (!attribute) return '';
  const value = entry[attribute];
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined ? '' : Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
};

/**
 * Where the username and address come from, in Zulip's three modes: LDAP_APPEND_DOMAIN (the
 * address is `<uid>@<domain>`), LDAP_EMAIL_ATTR (an attribute holds it), or neither (people sign
 * in with their address, which the search filter matches).
 */
export function loginUsername(config: LdapConfig, typed: string): string | null {
  const name = typed.trim();
  if (config.appendDomain) {
    const at = name.lastIndexOf('@');
    if (at < 0) return name.toLowerCase();
    // An address in the appended domain stands for its uid; any other domain is not LDAP's.
    return name.slice(at + 1).toLowerCase() === config.appendDomain
      ? name.slice(0, at).toLowerCase()
      : null;
  }
  return config.emailAttr ? name : name.toLowerCase();
}

function person(config: LdapConfig, entry: Entry, username: string): LdapPerson {
  const email = config.appendDomain
    ? `${username}@${config.appendDomain}`
    : config.emailAttr
      ? first(entry, config.emailAttr)
      : username;
  const { fullName, firstName, lastName } = config.attrMap;
  const name = fullName
    ? first(entry, fullName)
    : [first(entry, firstName), first(entry, lastName)].join(' ');
  return { dn: entry.dn, username, email: email.trim().toLowerCase(), fullName: name.trim() };
}

/**
 * One connection to the directory for `work`: StartTLS first when asked (ldaps:// is TLS from the
 * start), checked against AUTH_LDAP_CA_CERT_FILE's CA, then bound as AUTH_LDAP_BIND_DN.
 */
export async function withDirectory<T>(
  config: LdapConfig,
  work: (directory: Directory) => Promise<T>,
): Promise<T> {
  // The certificate is checked against the server's name (tls.connect over an upgraded socket
  // would otherwise check "localhost").
  const tls = {
    ...(config.tlsCa ? { ca: [config.tlsCa] } : {}),
    host: new URL(config.serverUri).hostname,
  };
  const client = new Client({
    url: config.serverUri,
    timeout: config.timeoutMs,
    connectTimeout: config.timeoutMs,
    // ldapts speaks TLS from the start whenever TLS options are given: only for ldaps://.
    ...(config.serverUri.startsWith('ldaps:') ? { tlsOptions: tls } : {}),
  });
  try {
    try {
      if (config.startTls) await client.startTLS({ ...tls });
      if (config.bindDn) await client.bind(config.bindDn, config.bindPassword);
    } catch (err) {
      throw new LdapUnavailable(`LDAP connection failed: ${(err as Error).message}`);
    }
    return await work(new Directory(client, config));
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

export class Directory {
  constructor(
    private readonly client: Client,
    private readonly config: LdapConfig,
  ) {}

  private async searchOne(filter: string): Promise<Entry | null> {
    const attributes = [
      this.config.attrMap.fullName,
      this.config.attrMap.firstName,
      this.config.attrMap.lastName,
      this.config.emailAttr,
      this.config.usernameAttr,
    ].filter((a): a is string => a !== null);
    let entries: Entry[];
    try {
      ({ searchEntries: entries } = await this.client.search(this.config.searchBase, {
        scope: this.config.searchScope,
        filter,
        attributes,
        sizeLimit: 2,
      }));
    } catch (err) {
      // More than one match: a directory to fix, not a sign-in to guess.
      if (err instanceof SizeLimitExceededError) return null;
      throw new LdapUnavailable(`LDAP search failed: ${(err as Error).message}`);
    }
    const [entry, ...others] = entries;
    return entry && others.length === 0 ? entry : null;
  }

  /** The person who signs in as `username` (already in loginUsername's form), or null. */
  async findByUsername(username: string): Promise<LdapPerson | null> {
    const entry = await this.searchOne(fillFilter(this.config.searchFilter, 'user', username));
    return entry ? person(this.config, entry, username) : null;
  }

  /** The person with this address (AUTH_LDAP_REVERSE_EMAIL_SEARCH), or null. */
  async findByEmail(email: string): Promise<LdapPerson | null> {
    if (this.config.appendDomain) {
      // The address names the uid; one in another domain is nobody in this directory.
      const username = loginUsername(this.config, email);
      return username ? this.findByUsername(username) : null;
    }
    const entry = await this.searchOne(fillFilter(this.config.reverseEmailFilter, 'email', email));
    if (!entry) return null;
    return person(
      this.config,
      entry,
      this.config.emailAttr ? first(entry, this.config.usernameAttr) : email,
    );
  }

  /**
   * Whether `password` is the person's: a bind as their entry. The connection then acts as them,
   * so this is the last thing done on it.
   */
  async checkPassword(dn: string, password: string): Promise<boolean> {
    // An empty password would be an anonymous bind, which servers accept (RFC 4513 5.1.2).
    if (password === '') return false;
    try {
      await this.client.bind(dn, password);
      return true;
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return false;
      throw new LdapUnavailable(`LDAP bind failed: ${(err as Error).message}`);
    }
  }
}
