import request from 'supertest';
import { syncLdapUsersCommand } from '../../../apps/cli/commands/ldap';
import { deactivateUser } from '../users/deactivate-user';
import { makeRealm, makeUser, type TestRealm } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { LDAP_PEOPLE, ldapPerson, startSlapd, type Slapd } from '../../../test/auth/slapd';

/**
 * Password sign-in through LDAP against Debian's slapd, started by the test with a generated
 * directory: the search as a service account, the bind as the user, StartTLS and LDAPS checked
 * against the test's own CA, the name and address synced, and the organization's rules.
 */
jest.setTimeout(60_000);

const ALICE = ldapPerson('alice', 'Alice', 'Adams');
const BOB = ldapPerson('bob', 'Bob', 'Brown');
const CAROL = ldapPerson('carol', 'Carol', 'Clark', 'elsewhere.example');
const DAVE = ldapPerson('dave', 'Dave', 'Davis');

let slapd: Slapd;
beforeAll(async () => {
  slapd = await startSlapd([ALICE, BOB, CAROL, DAVE]);
});
afterAll(async () => {
  await slapd?.close();
});

/** A JSON answer's fields, to compare. */
const body = (res: request.Response) => res.body as Record<string, unknown>;

const fetchApiKey = (t: TestContext, host: string, username: string, password: string) =>
  request(t.app)
    .post('/api/v1/fetch_api_key')
    .set('Host', host)
    .type('form')
    .send({ username, password });

/** uids sign in (LDAP_EMAIL_ATTR), over StartTLS, searched as a service account; LDAP only. */
describe('StartTLS, LDAP_EMAIL_ATTR, a service account', () => {
  let t: TestContext;
  let org: TestRealm;
  beforeAll(async () => {
    t = await startTestContext({
      PASSWORD_AUTH_ENABLED: 'false',
      ...slapd.startTlsSettings,
      AUTH_LDAP_USER_SEARCH_FILTER: '(&(objectClass=inetOrgPerson)(uid=%(user)s))',
      AUTH_LDAP_USER_ATTR_MAP: JSON.stringify({ first_name: 'givenName', last_name: 'sn' }),
      LDAP_EMAIL_ATTR: 'mail',
    });
    org = await makeRealm(t, { stringId: '' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('server_settings reports LDAP and usernames that are not addresses', async () => {
    const res = await request(t.app).get('/api/v1/server_settings').set('Host', org.host);
    expect(body(res).authentication_methods).toMatchObject({
      ldap: true,
      password: true,
      email: false,
    });
    expect(body(res).require_email_format_usernames).toBe(false);
  });

  it('signs in by uid, links the account by its address and syncs the name', async () => {
    const alice = await makeUser(t, org.realm, { email: ALICE.mail, fullName: 'Old Name' });
    const res = await fetchApiKey(t, org.host, 'alice', ALICE.password);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ api_key: alice.apiKey, user_id: alice.user.id });
    const row = await t.db.user.findUniqueOrThrow({ where: { id: alice.user.id } });
    expect(row.fullName).toBe('Alice Adams');
    expect(row.ldapUsername).toBe('alice');
  });

  it('follows an address changed in the directory, on the same account', async () => {
    const bob = await makeUser(t, org.realm, { email: BOB.mail, fullName: 'Bob Brown' });
    expect((await fetchApiKey(t, org.host, 'bob', BOB.password)).status).toBe(200);
    await slapd.modify('bob', 'mail', 'robert@acme.example');
    const res = await fetchApiKey(t, org.host, 'bob', BOB.password);
    expect(res.status).toBe(200);
    expect(body(res).user_id).toBe(bob.user.id);
    const row = await t.db.user.findUniqueOrThrow({ where: { id: bob.user.id } });
    expect(row.deliveryEmail).toBe('robert@acme.example');
    await slapd.modify('bob', 'mail', BOB.mail);
  });

  it('the web sign-in (POST /json/login) goes to LDAP too and starts a session', async () => {
    const agent = request.agent(t.app);
    const page = await agent.get('/accounts/password/reset/').set('Host', org.host);
    const csrf = /csrftoken=([^;]+)/.exec(String(page.headers['set-cookie']))![1];
    const res = await agent
      .post('/json/login')
      .set('Host', org.host)
      .set('X-CSRFToken', csrf)
      .type('form')
      .send({ username: 'alice', password: ALICE.password });
    expect(res.status).toBe(200);
    const me = await agent.get('/json/users/me').set('Host', org.host);
    expect(body(me).email).toBe(ALICE.mail);
  });

  it('refuses a wrong password, an empty one and an unknown uid alike', async () => {
    for (const [username, password] of [
      ['alice', 'wrong'],
      ['alice', ' '],
      ['nobody', 'x'],
    ]) {
      const res = await fetchApiKey(t, org.host, username, password);
      expect(res.status).toBe(401);
      expect(body(res).code).toBe('AUTHENTICATION_FAILED');
      expect(body(res).api_key).toBeUndefined();
    }
  });

  it('an LDAP filter injected in the username matches nobody', async () => {
    for (const username of ['al*', '*', 'alice)(uid=*', '*)(|(uid=*', 'alice\\2a']) {
      const res = await fetchApiKey(t, org.host, username, ALICE.password);
      expect(res.status).toBe(401);
      expect(body(res).api_key).toBeUndefined();
    }
  });

  it('creates no account on a first sign-in (off by default for LDAP)', async () => {
    const before = await t.db.user.count();
    const res = await fetchApiKey(t, org.host, 'dave', DAVE.password);
    expect(res.status).toBe(401);
    expect(String(body(res).msg)).toContain('no account');
    expect(await t.db.user.count()).toBe(before);
  });

  it('refuses a deactivated account', async () => {
    const carol = await makeUser(t, org.realm, { email: CAROL.mail });
    await t.db.user.update({ where: { id: carol.user.id }, data: { isActive: false } });
    const res = await fetchApiKey(t, org.host, 'carol', CAROL.password);
    expect(res.status).toBe(401);
    expect(body(res).code).toBe('USER_DEACTIVATED');
  });

  it("the organization's authentication_methods turns LDAP off", async () => {
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { authenticationMethods: { LDAP: false } },
    });
    const settings = await request(t.app).get('/api/v1/server_settings').set('Host', org.host);
    expect(body(settings).authentication_methods).toMatchObject({ ldap: false, password: false });
    const res = await fetchApiKey(t, org.host, 'alice', ALICE.password);
    expect(body(res).code).toBe('PASSWORD_AUTH_DISABLED');
    await t.db.realm.update({ where: { id: org.realm.id }, data: { authenticationMethods: {} } });
  });

  it('sync-ldap-users renames, and deactivates who left the directory', async () => {
    const erin = ldapPerson('erin', 'Erin', 'Evans');
    await slapd.add(erin);
    const erinUser = await makeUser(t, org.realm, { email: erin.mail, fullName: 'Erin Evans' });
    const frank = await makeUser(t, org.realm, { email: 'frank@acme.example' });
    await slapd.modify('erin', 'givenName', 'Erina');

    const dry = await syncLdapUsersCommand(t, ['--dry-run']);
    expect(dry.deactivated).toContain('frank@acme.example');
    expect((await t.db.user.findUniqueOrThrow({ where: { id: frank.user.id } })).isActive).toBe(
      true,
    );

    const report = await syncLdapUsersCommand(t, []);
    expect(report.deactivated).toContain('frank@acme.example');
    expect(report.updated).toContain(erin.mail);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: frank.user.id } })).isActive).toBe(
      false,
    );
    const synced = await t.db.user.findUniqueOrThrow({ where: { id: erinUser.user.id } });
    expect(synced).toMatchObject({ fullName: 'Erina Evans', isActive: true, ldapUsername: 'erin' });
    // The owner made by makeRealm is in no directory: the organization keeps its only owner.
    expect(report.skipped.map((s) => s.email)).toContain(org.owner.email);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: org.owner.user.id } })).isActive).toBe(
      true,
    );
  });

  it('sync-ldap-users reactivates who is back in the directory, not whom an admin deactivated', async () => {
    const gina = ldapPerson('gina', 'Gina', 'Green');
    const henry = ldapPerson('henry', 'Henry', 'Hill');
    const ginaUser = await makeUser(t, org.realm, { email: gina.mail, fullName: 'Gina Green' });
    expect((await syncLdapUsersCommand(t, [])).deactivated).toContain(gina.mail);
    const isActive = async (id: number) =>
      (await t.db.user.findUniqueOrThrow({ where: { id } })).isActive;
    expect(await isActive(ginaUser.user.id)).toBe(false);

    // Henry is in the directory all along, but an administrator deactivated him.
    await slapd.add(henry);
    const henryUser = await makeUser(t, org.realm, { email: henry.mail });
    await deactivateUser(t, {
      actor: org.owner.user,
      realm: org.realm,
      target: henryUser.user,
      notificationComment: null,
    });
    await slapd.add({ ...gina, givenName: 'Georgina' });

    const dry = await syncLdapUsersCommand(t, ['--dry-run']);
    expect(dry.reactivated).toEqual([gina.mail]);
    expect(await isActive(ginaUser.user.id)).toBe(false);

    const report = await syncLdapUsersCommand(t, []);
    // Frank, deactivated by the run before, is still not in the directory: he stays so.
    expect(report.reactivated).toEqual([gina.mail]);
    expect(report.deactivated).toEqual([]);
    const back = await t.db.user.findUniqueOrThrow({ where: { id: ginaUser.user.id } });
    expect(back).toMatchObject({
      isActive: true,
      ldapSyncDeactivated: false,
      fullName: 'Georgina Green',
      ldapUsername: 'gina',
    });
    expect(await isActive(henryUser.user.id)).toBe(false);
    const signIn = await fetchApiKey(t, org.host, 'gina', gina.password);
    expect(signIn.status).toBe(200);
    expect((await syncLdapUsersCommand(t, [])).reactivated).toEqual([]);
  });
});

/** Addresses in one domain (LDAP_APPEND_DOMAIN), over LDAPS, anonymous search, sign-up on. */
describe('LDAPS, LDAP_APPEND_DOMAIN, account creation allowed', () => {
  let t: TestContext;
  let org: TestRealm;
  beforeAll(async () => {
    t = await startTestContext({
      AUTH_LDAP_SERVER_URI: slapd.ldapsUrl,
      AUTH_LDAP_CA_CERT_FILE: slapd.caFile,
      AUTH_LDAP_USER_SEARCH_BASE: LDAP_PEOPLE,
      LDAP_APPEND_DOMAIN: 'acme.example',
      AUTH_LDAP_AUTO_SIGNUP: 'true',
    });
    org = await makeRealm(t, { stringId: '' });
    await t.db.realm.update({ where: { id: org.realm.id }, data: { inviteRequired: false } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates the account at the first sign-in, with the directory name', async () => {
    const res = await fetchApiKey(t, org.host, 'dave@acme.example', DAVE.password);
    expect(res.status).toBe(200);
    const dave = await t.db.user.findUniqueOrThrow({ where: { id: body(res).user_id as number } });
    expect(dave).toMatchObject({ deliveryEmail: 'dave@acme.example', fullName: 'Dave Davis' });
    expect(body(await fetchApiKey(t, org.host, 'dave', DAVE.password)).user_id).toBe(dave.id);
  });

  it('an address in another domain is not an LDAP username; local passwords still work', async () => {
    const local = await makeUser(t, org.realm, {
      email: 'local@other.example',
      password: 'local pass',
    });
    const res = await fetchApiKey(t, org.host, 'local@other.example', 'local pass');
    expect(res.status).toBe(200);
    expect(body(res).user_id).toBe(local.user.id);
    expect((await fetchApiKey(t, org.host, 'carol@other.example', CAROL.password)).status).toBe(
      401,
    );
  });

  it('refuses a server whose certificate is not the configured CA’s', async () => {
    const untrusting = await startTestContext({
      AUTH_LDAP_SERVER_URI: slapd.ldapsUrl,
      AUTH_LDAP_USER_SEARCH_BASE: LDAP_PEOPLE,
      LDAP_APPEND_DOMAIN: 'acme.example',
      PASSWORD_AUTH_ENABLED: 'false',
    });
    try {
      const other = await makeRealm(untrusting, { stringId: '' });
      const res = await fetchApiKey(untrusting, other.host, 'dave', DAVE.password);
      expect(res.status).toBe(401);
      expect(String(body(res).msg)).toContain('cannot be reached');
    } finally {
      await untrusting.close();
    }
  });
});
