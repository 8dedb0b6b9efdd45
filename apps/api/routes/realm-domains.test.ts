import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { register } from '../../../test/events-factories';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { api } from '../../../test/requests';
import { Role } from '../../../libs/domain/users/roles';

let t: TestContext;
let org: TestRealm;
let admin: TestUser;
let member: TestUser;
let guest: TestUser;

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
  member = await makeUser(t, org.realm);
  guest = await makeUser(t, org.realm, { role: Role.GUEST });
});
afterAll(() => t.close());

type Form = Record<string, string | number | boolean>;
const call = (
  method: 'get' | 'post' | 'patch' | 'delete',
  path: string,
  auth: string,
  form?: Form,
) => api(t, org.host, method, path, auth, form);
/** The organization's active users, its bots included (they hold event queues too). */
const everyone = async () =>
  (
    await t.db.user.findMany({
      where: { realmId: org.realm.id, isActive: true },
      orderBy: { id: 'asc' },
    })
  ).map((u) => u.id);

describe('realm domains', () => {
  it('are listed to everyone and in the register state', async () => {
    await t.db.realmDomain.create({
      data: { realmId: org.realm.id, domain: 'listed.example', allowSubdomains: true },
    });
    for (const user of [guest, member]) {
      const res = await call('get', '/realm/domains', user.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        domains: [{ domain: 'listed.example', allow_subdomains: true }],
      });
    }
    const state = await register(t, org.host, member.auth, {
      fetch_event_types: JSON.stringify(['realm_domains']),
    });
    expect(state.realm_domains).toEqual([{ domain: 'listed.example', allow_subdomains: true }]);
    await t.db.realmDomain.deleteMany({ where: { realmId: org.realm.id } });
  });

  it('are added by owners only, with an add event for everyone', async () => {
    for (const user of [admin, member, guest]) {
      const denied = await call('post', '/realm/domains', user.auth, {
        domain: 'denied.example',
        allow_subdomains: false,
      });
      expect(denied.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization owner',
      });
    }
    const mark = await outboxMark(t);
    const res = await call('post', '/realm/domains', org.owner.auth, {
      domain: '  Acme.Example ',
      allow_subdomains: 'true',
    });
    expect(res.status).toBe(200);
    const row = await t.db.realmDomain.findFirstOrThrow({
      where: { realmId: org.realm.id, domain: 'acme.example' },
    });
    expect(row.allowSubdomains).toBe(true);
    expect(res.body).toEqual({ result: 'success', msg: '', new_domain: [row.id, 'acme.example'] });
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      {
        type: 'realm_domains',
        op: 'add',
        realm_domain: { domain: 'acme.example', allow_subdomains: true },
      },
    ]);
    expect([...events[0].users].sort((a, b) => a - b)).toEqual(await everyone());

    const again = await call('post', '/realm/domains', org.owner.auth, {
      domain: 'ACME.example',
      allow_subdomains: false,
    });
    expect(again.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'The domain acme.example is already a part of your organization.',
    });
    expect(await t.db.realmDomain.count({ where: { realmId: org.realm.id } })).toBe(1);
    await t.db.realmDomain.deleteMany({ where: { realmId: org.realm.id } });
  });

  it('refuses invalid domains and missing arguments', async () => {
    const cases: [string, string][] = [
      ['', "Invalid domain: Domain can't be empty."],
      ['localhost', 'Invalid domain: Domain must have at least one dot (.)'],
      ['.acme.example', 'Invalid domain: Domain cannot start or end with a dot (.)'],
      ['acme..example', "Invalid domain: Consecutive '.' are not allowed."],
      ['-acme.example', "Invalid domain: Subdomains cannot start or end with a '-'."],
      ['ac_me.example', "Invalid domain: Domain can only have letters, numbers, '.' and '-'s."],
      [`${'a'.repeat(250)}.example`, 'Invalid domain: Domain is too long'],
    ];
    for (const [domain, msg] of cases) {
      const res = await call('post', '/realm/domains', org.owner.auth, {
        domain,
        allow_subdomains: false,
      });
      expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg });
    }
    const missing = await call('post', '/realm/domains', org.owner.auth, { domain: 'x.example' });
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'allow_subdomains',
    });
    expect(await t.db.realmDomain.count({ where: { realmId: org.realm.id } })).toBe(0);
  });

  it('are changed by owners only, with a change event', async () => {
    await t.db.realmDomain.create({ data: { realmId: org.realm.id, domain: 'change.example' } });
    const denied = await call('patch', '/realm/domains/change.example', admin.auth, {
      allow_subdomains: true,
    });
    expect(denied.body.msg).toBe('Must be an organization owner');
    const mark = await outboxMark(t);
    const res = await call('patch', '/realm/domains/change.example', org.owner.auth, {
      allow_subdomains: true,
    });
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const row = await t.db.realmDomain.findFirstOrThrow({
      where: { realmId: org.realm.id, domain: 'change.example' },
    });
    expect(row.allowSubdomains).toBe(true);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      {
        type: 'realm_domains',
        op: 'change',
        realm_domain: { domain: 'change.example', allow_subdomains: true },
      },
    ]);
    expect([...events[0].users].sort((a, b) => a - b)).toEqual(await everyone());
    const unknown = await call('patch', '/realm/domains/nowhere.example', org.owner.auth, {
      allow_subdomains: true,
    });
    expect(unknown.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'No entry found for domain nowhere.example.',
    });
    await t.db.realmDomain.deleteMany({ where: { realmId: org.realm.id } });
  });

  it('are removed by owners only; removing the last lifts the restriction', async () => {
    await t.db.realmDomain.createMany({
      data: [
        { realmId: org.realm.id, domain: 'one.example' },
        { realmId: org.realm.id, domain: 'two.example' },
      ],
    });
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { emailsRestrictedToDomains: true },
    });
    const denied = await call('delete', '/realm/domains/one.example', member.auth);
    expect(denied.body.msg).toBe('Must be an organization owner');

    let mark = await outboxMark(t);
    expect((await call('delete', '/realm/domains/one.example', org.owner.auth)).status).toBe(200);
    expect((await eventsAfter(t, mark)).map((e) => e.event)).toEqual([
      { type: 'realm_domains', op: 'remove', domain: 'one.example' },
    ]);
    const stillRestricted = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(stillRestricted.emailsRestrictedToDomains).toBe(true);

    mark = await outboxMark(t);
    expect((await call('delete', '/realm/domains/two.example', org.owner.auth)).status).toBe(200);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false },
      { type: 'realm_domains', op: 'remove', domain: 'two.example' },
    ]);
    expect([...events[1].users].sort((a, b) => a - b)).toEqual(await everyone());
    const lifted = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(lifted.emailsRestrictedToDomains).toBe(false);

    const gone = await call('delete', '/realm/domains/two.example', org.owner.auth);
    expect(gone.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'No entry found for domain two.example.',
    });
  });
});
