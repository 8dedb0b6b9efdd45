import { Role } from '../../../libs/domain/users/roles';
import { cliEnv, cliJson } from '../../../test/cli';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let creator: TestUser;

beforeAll(async () => {
  org = await organization({ members: { creator: 'administrator' } });
  ({ t } = org);
  ({ creator } = org.users);
  await t.db.user.update({ where: { id: creator.user.id }, data: { canCreateUsers: true } });
});
afterAll(() => org.close());

const create = (who: TestUser, form: Record<string, string>) => org.as(who).post('/users', form);

const NEW = { email: 'newbie@example.com', password: 'a long password', full_name: 'New Bie' };

describe('POST /users', () => {
  it('creates a member who can log in with the password, and tells the organization', async () => {
    const mark = await outboxMark(t);
    const res = await create(creator, NEW);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users', 'post', res.body);
    const user = await t.db.user.findUniqueOrThrow({ where: { id: res.body.user_id as number } });
    expect(user).toMatchObject({
      realmId: org.realm.id,
      deliveryEmail: 'newbie@example.com',
      fullName: 'New Bie',
      role: Role.MEMBER,
      isBot: false,
      canCreateUsers: false,
    });
    const login = await org.as(null).post('/fetch_api_key', {
      username: NEW.email,
      password: NEW.password,
    });
    expect(login.status).toBe(200);
    expect(login.body.user_id).toBe(user.id);
    const added = (await eventsAfter(t, mark)).find((e) => e.event.type === 'realm_user');
    expect(added?.event).toMatchObject({ op: 'add', person: { user_id: user.id } });
    expect(added?.users).toContain(org.owner.user.id);
  });

  it('needs an administrator holding can_create_users', async () => {
    for (const role of [Role.MEMBER, Role.GUEST, Role.MODERATOR]) {
      const actor = await makeUser(t, org.realm, { role });
      const res = await create(actor, { ...NEW, email: 'nope@example.com' });
      expect(res.body).toEqual({
        result: 'error',
        code: 'BAD_REQUEST',
        msg: 'Must be an organization administrator',
      });
    }
    // The owner without the server-level permission is refused too.
    const res = await create(org.owner, { ...NEW, email: 'nope@example.com' });
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'User not authorized to create users',
    });
    expect(await t.db.user.count({ where: { deliveryEmail: 'nope@example.com' } })).toBe(0);
  });

  it("refuses bad names and addresses, weak passwords and addresses in use, in Zulip's words", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ full_name: '' }, 'Name too short!'],
      [{ full_name: 'x'.repeat(101) }, 'Name too long!'],
      [{ full_name: 'Bad *name*' }, 'Invalid characters in name!'],
      [{ email: 'not-an-address' }, 'Bad name or username'],
      [{ email: 'other@example.com', password: 'abc' }, 'The password is too weak.'],
      [{ email: NEW.email.toUpperCase() }, "Email 'newbie@example.com' already in use"],
      [{ email: creator.email }, `Email '${creator.email}' already in use`],
    ];
    for (const [form, msg] of cases) {
      const res = await create(creator, { ...NEW, ...form });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg });
    }
    const missing = await org.as(creator).post('/users', {
      email: 'x@example.com',
      full_name: 'X',
    });
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'password' });
  });

  it("applies the organization's address rules", async () => {
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { emailsRestrictedToDomains: true },
    });
    await t.db.realmDomain.create({ data: { realmId: org.realm.id, domain: 'acme.example' } });
    const outside = await create(creator, { ...NEW, email: 'someone@elsewhere.example' });
    expect(outside.body.msg).toBe(
      "Email 'someone@elsewhere.example' not allowed in this organization",
    );
    const plus = await create(creator, { ...NEW, email: 'a+b@acme.example' });
    expect(plus.body.msg).toBe('Email addresses containing + are not allowed.');
    expect((await create(creator, { ...NEW, email: 'inside@acme.example' })).status).toBe(200);
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { emailsRestrictedToDomains: false, disallowDisposableEmailAddresses: true },
    });
    const disposable = await create(creator, { ...NEW, email: 'x@mailinator.com' });
    expect(disposable.body.msg).toBe(
      'Disposable email addresses are not allowed in this organization',
    );
  });

  it('is granted and revoked by the operator with grant-create-users', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const cli = (...args: string[]) =>
      cliJson(['grant-create-users', '--realm', org.realm.stringId, ...args], cliEnv(t.config));
    const granted = await cli('--user', admin.email);
    expect(granted).toMatchObject({ id: admin.user.id, can_create_users: true });
    expect(granted.api_key).toBe(admin.apiKey);
    const ok = await create(admin, { ...NEW, email: 'granted@example.com' });
    expect(ok.status).toBe(200);
    expect(await cli('--user', String(admin.user.id), '--revoke')).toMatchObject({
      can_create_users: false,
    });
    const refused = await create(admin, { ...NEW, email: 'revoked@example.com' });
    expect(refused.body.msg).toBe('User not authorized to create users');
  });
});
