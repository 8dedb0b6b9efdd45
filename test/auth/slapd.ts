import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../free-port';

const run = promisify(execFile);

export const LDAP_BASE = 'dc=example,dc=com';
export const LDAP_PEOPLE = `ou=people,${LDAP_BASE}`;
export const LDAP_ADMIN_DN = `cn=admin,${LDAP_BASE}`;
export const LDAP_ADMIN_PASSWORD = 'admin-secret';

export interface LdapPersonEntry {
  uid: string;
  givenName: string;
  sn: string;
  mail: string;
  password: string;
}

export interface Slapd {
  /** `ldap://127.0.0.1:<port>` (StartTLS offered) and `ldaps://127.0.0.1:<port>`. */
  ldapUrl: string;
  ldapsUrl: string;
  /** The self-signed certificate's file: the CA to trust. */
  caFile: string;
  caPem: string;
  /** The AUTH_LDAP_* settings that reach it over StartTLS, searching as its administrator. */
  startTlsSettings: Record<string, string>;
  add(person: LdapPersonEntry): Promise<void>;
  remove(uid: string): Promise<void>;
  modify(uid: string, attribute: string, value: string): Promise<void>;
  close(): Promise<void>;
}

/** A person for the directory: `<uid>@<domain>`, password `<uid>-pw`. */
export const ldapPerson = (
  uid: string,
  givenName: string,
  sn: string,
  domain = 'acme.example',
): LdapPersonEntry => ({ uid, givenName, sn, mail: `${uid}@${domain}`, password: `${uid}-pw` });

const personLdif = (p: LdapPersonEntry) =>
  [
    `dn: uid=${p.uid},${LDAP_PEOPLE}`,
    'objectClass: inetOrgPerson',
    `uid: ${p.uid}`,
    `cn: ${p.givenName} ${p.sn}`,
    `givenName: ${p.givenName}`,
    `sn: ${p.sn}`,
    `mail: ${p.mail}`,
    `userPassword: ${p.password}`,
    '',
  ].join('\n');

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * Debian's slapd as this test's own process: a generated slapd.conf and mdb database in a temp
 * directory, a self-signed certificate made with openssl (for LDAPS and StartTLS), plain and TLS
 * listeners on free high ports, and the directory loaded with ldapadd.
 */
export async function startSlapd(people: LdapPersonEntry[]): Promise<Slapd> {
  const dir = await mkdtemp(path.join(tmpdir(), 'slapd-'));
  const caFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  await run('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
    '-keyout', keyFile, '-out', caFile, '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1',
  ]); // prettier-ignore
  await mkdir(path.join(dir, 'data'));
  const conf = path.join(dir, 'slapd.conf');
  await writeFile(
    conf,
    [
      ...['core', 'cosine', 'inetorgperson', 'nis'].map(
        (s) => `include /etc/ldap/schema/${s}.schema`,
      ),
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      `pidfile ${dir}/slapd.pid`,
      `TLSCertificateFile ${caFile}`,
      `TLSCertificateKeyFile ${keyFile}`,
      'database mdb',
      'maxsize 10485760',
      `suffix "${LDAP_BASE}"`,
      `rootdn "${LDAP_ADMIN_DN}"`,
      `rootpw ${LDAP_ADMIN_PASSWORD}`,
      `directory ${dir}/data`,
      'access to attrs=userPassword by self write by anonymous auth by * none',
      'access to * by * read',
      '',
    ].join('\n'),
  );
  const [plainPort, tlsPort] = [await freePort(), await freePort()];
  const ldapUrl = `ldap://127.0.0.1:${plainPort}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  const child: ChildProcess = spawn(
    '/usr/sbin/slapd',
    ['-f', conf, '-h', `${ldapUrl}/ ${ldapsUrl}/`, '-d', '0'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  for (let i = 0; !(await listening(plainPort)) || !(await listening(tlsPort)); i++) {
    if (child.exitCode !== null || i > 100) {
      child.kill('SIGTERM');
      throw new Error(`slapd did not start: ${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ldif = async (
    tool: 'ldapadd' | 'ldapmodify' | 'ldapdelete',
    input: string,
    args: string[] = [],
  ) => {
    const file = path.join(dir, `change-${Date.now()}-${Math.random()}.ldif`);
    await writeFile(file, input);
    await run(tool, [
      '-x',
      '-H',
      ldapUrl,
      '-D',
      LDAP_ADMIN_DN,
      '-w',
      LDAP_ADMIN_PASSWORD,
      ...args,
      '-f',
      file,
    ]);
  };
  await ldif(
    'ldapadd',
    [
      `dn: ${LDAP_BASE}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n`,
      `dn: ${LDAP_PEOPLE}\nobjectClass: organizationalUnit\nou: people\n`,
      ...people.map(personLdif),
    ].join('\n'),
  );
  return {
    ldapUrl,
    ldapsUrl,
    caFile,
    caPem: await readFile(caFile, 'utf8'),
    startTlsSettings: {
      AUTH_LDAP_SERVER_URI: ldapUrl,
      AUTH_LDAP_START_TLS: 'true',
      AUTH_LDAP_CA_CERT_FILE: caFile,
      AUTH_LDAP_BIND_DN: LDAP_ADMIN_DN,
      AUTH_LDAP_BIND_PASSWORD: LDAP_ADMIN_PASSWORD,
      AUTH_LDAP_USER_SEARCH_BASE: LDAP_PEOPLE,
    },
    add: (person) => ldif('ldapadd', personLdif(person)),
    remove: (uid) => ldif('ldapdelete', `uid=${uid},${LDAP_PEOPLE}\n`),
    modify: (uid, attribute, value) =>
      ldif(
        'ldapmodify',
        `dn: uid=${uid},${LDAP_PEOPLE}\nchangetype: modify\nreplace: ${attribute}\n${attribute}: ${value}\n`,
      ),
    async close() {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
