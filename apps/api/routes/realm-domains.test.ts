import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let admin: TestUser;
let member: TestUser;
let guest: TestUser;

beforeAll(async () => {
  org = await organization({
    members: { admin: 'administrator', member: 'member', guest: 'guest' },
  });
  ({ t } = org);
  ({ admin, member, guest } = org.users);
});
afterAll(() => org.close());

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
      const res = await org.as(user).get('/realm/domains');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        result: 'success',
        msg: '',
        domains: [{ domain: 'listed.example', allow_subdomains: true }],
      });
    }
    const state = await org.register(member, {
      fetch_event_types: JSON.stringify(['realm_domains']),
    });
    expect(state.realm_domains).toEqual([{ domain: 'listed.example', allow_subdomains: true }]);
    await t.db.realmDomain.deleteMany({ where: { realmId: org.realm.id } });
  });

  it('are added by owners only, with an add event for everyone', async () => {
    for (const user of [admin, member, guest]) {
      const denied = await org.as(user).post('/realm/domains', {
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
    const res = await org.as(org.owner).post('/realm/domains', {
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

    const again = await org.as(org.owner).post('/realm/domains', {
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
      const res = await org.as(org.owner).post('/realm/domains', {
        domain,
        allow_subdomains: false,
      });
      expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg });
    }
    const missing = await org.as(org.owner).post('/realm/domains', { domain: 'x.example' });
    expect(missing.body).toMatchObject({
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'allow_subdomains',
    });
    expect(await t.db.realmDomain.count({ where: { realmId: org.realm.id } })).toBe(0);
  });

  it('are changed by owners only, with a change event', async () => {
    await t.db.realmDomain.create({ data: { realmId: org.realm.id, domain: 'change.example' } });
    const denied = await org.as(admin).patch('/realm/domains/change.example', {
      allow_subdomains: true,
    });
    expect(denied.body.msg).toBe('Must be an organization owner');
    const mark = await outboxMark(t);
    const res = await org.as(org.owner).patch('/realm/domains/change.example', {
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
    const unknown = await org.as(org.owner).patch('/realm/domains/nowhere.example', {
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
    const denied = await org.as(member).delete('/realm/domains/one.example');
    expect(denied.body.msg).toBe('Must be an organization owner');

    let mark = await outboxMark(t);
    expect((await org.as(org.owner).delete('/realm/domains/one.example')).status).toBe(200);
    expect((await eventsAfter(t, mark)).map((e) => e.event)).toEqual([
      { type: 'realm_domains', op: 'remove', domain: 'one.example' },
    ]);
    const stillRestricted = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(stillRestricted.emailsRestrictedToDomains).toBe(true);

    mark = await outboxMark(t);
    expect((await org.as(org.owner).delete('/realm/domains/two.example')).status).toBe(200);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false },
      { type: 'realm_domains', op: 'remove', domain: 'two.example' },
    ]);
    expect([...events[1].users].sort((a, b) => a - b)).toEqual(await everyone());
    const lifted = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(lifted.emailsRestrictedToDomains).toBe(false);

    const gone = await org.as(org.owner).delete('/realm/domains/two.example');
    expect(gone.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'No entry found for domain two.example.',
    });
  });
});
