import { Role } from '../../../libs/domain/users/roles';
import { type OwnUser, ownUser } from '../../../libs/domain/users/own-user';
import { EmailVisibility } from '../../../libs/domain/permissions/email-visibility';
import { makeBot, makeRealm, makeUser } from '../../../test/factories';
import { basicAuth, type TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { api } from '../../../test/requests';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
});
afterAll(() => org.close());

const get = (path: string, auth?: string, host = org.host) =>
  api(t, host, 'get', path, auth ?? null);

describe('GET /users/me', () => {
  it('returns the caller in Zulip shape', async () => {
    const res = await get('/users/me', org.owner.auth);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users/me', 'get', res.body);
    expect(res.body).toMatchObject({
      result: 'success',
      msg: '',
      user_id: org.owner.user.id,
      email: org.owner.email,
      delivery_email: org.owner.email,
      full_name: 'Olivia Owner',
      role: Role.OWNER,
      is_owner: true,
      is_admin: true,
      is_guest: false,
      is_bot: false,
      is_active: true,
      max_message_id: -1,
      profile_data: {},
    });
    expect(res.body.date_joined).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d\+00:00$/);
    expect(res.body).not.toHaveProperty('is_billing_admin');
  });

  it('leaves profile_data out for bots', async () => {
    const bot = await makeBot(t, org.realm, org.owner.user);
    const res = await get('/users/me', bot.auth);
    expect(res.status).toBe(200);
    expect(res.body.is_bot).toBe(true);
    expect(res.body).not.toHaveProperty('profile_data');
  });

  it('answers each caller of one event-loop turn from the one query they share', async () => {
    const member = await makeUser(t, org.realm);
    const bot = await makeBot(t, org.realm, org.owner.user);
    const field = await org.as(org.owner).post('/realm/profile_fields', {
      name: 'Shared turn',
      field_type: 1,
    });
    await org.as(member).patch('/users/me/profile_data', {
      data: JSON.stringify([{ id: field.body.id, value: 'tea' }]),
    });
    const sent = await org.as(org.owner).post('/messages', {
      type: 'direct',
      to: JSON.stringify([member.user.id]),
      content: 'hello',
    });
    expect(sent.status).toBe(200);
    const callers = [org.owner, member, bot, member].map((u) => u.user);
    const alone: OwnUser[] = [];
    for (const user of callers) alone.push(await ownUser(t, user));
    const together = await Promise.all(callers.map((user) => ownUser(t, user)));
    expect(together).toEqual(alone);
    expect(together[0].max_message_id).toBe(sent.body.id);
    expect(together[1]).toMatchObject({
      user_id: member.user.id,
      max_message_id: sent.body.id,
      profile_data: { [String(field.body.id)]: { value: 'tea', rendered_value: '<p>tea</p>' } },
    });
    expect(together[2]).toMatchObject({ user_id: bot.user.id, max_message_id: -1 });
    expect(together[2]).not.toHaveProperty('profile_data');
  });

  it('answers the same without prepared statements (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    const unprepared = await organization({ env: { DATABASE_PREPARED_STATEMENTS: 'false' } });
    try {
      expect(unprepared.t.config.databasePreparedStatements).toBe(false);
      const res = await api(
        unprepared.t,
        unprepared.host,
        'get',
        '/users/me',
        unprepared.owner.auth,
      );
      expect(res.status).toBe(200);
      expectOpenApiResponse('/users/me', 'get', res.body);
      expect(res.body).toMatchObject({
        user_id: unprepared.owner.user.id,
        max_message_id: -1,
        profile_data: {},
      });
    } finally {
      await unprepared.close();
    }
  });

  it('reports unsupported parameters', async () => {
    const res = await get('/users/me?bogus=1&also=2', org.owner.auth);
    expect(res.status).toBe(200);
    expect(res.body.ignored_parameters_unsupported).toEqual(['also', 'bogus']);
  });
});

describe('authentication', () => {
  it('refuses a request without credentials with 401 UNAUTHORIZED', async () => {
    const res = await get('/users/me');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ result: 'error', code: 'UNAUTHORIZED' });
    expect(res.headers['www-authenticate']).toMatch(/^Basic/);
  });

  it('refuses a wrong key with INVALID_API_KEY', async () => {
    const res = await get('/users/me', basicAuth(org.owner.email, 'x'.repeat(32)));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ result: 'error', msg: 'Invalid API key', code: 'INVALID_API_KEY' });
  });

  it('refuses a malformed key', async () => {
    const res = await get('/users/me', basicAuth(org.owner.email, 'short'));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'INVALID_API_KEY', msg: 'Malformed API key' });
  });

  it('refuses a right key presented with another email', async () => {
    const res = await get('/users/me', basicAuth('someone-else@example.com', org.owner.apiKey));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_API_KEY');
  });

  it('accepts the email in any case', async () => {
    const res = await get('/users/me', basicAuth(org.owner.email.toUpperCase(), org.owner.apiKey));
    expect(res.status).toBe(200);
  });

  it('refuses a non-Basic scheme', async () => {
    const res = await get('/users/me', 'Bearer abc');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('refuses a deactivated user with USER_DEACTIVATED', async () => {
    const member = await makeUser(t, org.realm);
    await t.db.user.update({ where: { id: member.user.id }, data: { isActive: false } });
    const res = await get('/users/me', member.auth);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Account is deactivated',
      code: 'USER_DEACTIVATED',
    });
  });

  it('refuses everyone in a deactivated organization with REALM_DEACTIVATED', async () => {
    const other = await makeRealm(t);
    await t.db.realm.update({ where: { id: other.realm.id }, data: { deactivated: true } });
    const res = await get('/users/me', other.owner.auth, other.host);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('REALM_DEACTIVATED');
  });

  it("refuses a key used at another organization's subdomain", async () => {
    const other = await makeRealm(t);
    const res = await get('/users/me', other.owner.auth, org.host);
    expect(res.status).toBe(401);
    expect(res.body.msg).toBe('Account is not associated with this subdomain');
  });

  it('answers 404 in the error envelope for unknown routes', async () => {
    const res = await get('/no/such/route', org.owner.auth);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ result: 'error', msg: 'Not Found' });
  });
});

describe('GET /users', () => {
  it('lists every user and bot of the organization in Zulip shape', async () => {
    const member = await makeUser(t, org.realm, { fullName: 'Mia Member' });
    const res = await get('/users', member.auth);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users', 'get', res.body);
    const ids = res.body.members.map((m: { user_id: number }) => m.user_id);
    expect(ids).toEqual(expect.arrayContaining([org.owner.user.id, member.user.id]));
    const other = await makeRealm(t);
    expect(ids).not.toContain(other.owner.user.id);
    const mia = res.body.members.find((m: { user_id: number }) => m.user_id === member.user.id);
    expect(mia).toMatchObject({ full_name: 'Mia Member', role: Role.MEMBER, is_bot: false });
    expect(mia).not.toHaveProperty('bot_type');
    expect(mia).not.toHaveProperty('profile_data');
  });

  it('gives bots bot_type and bot_owner_id', async () => {
    const bot = await makeBot(t, org.realm, org.owner.user);
    const res = await get('/users', org.owner.auth);
    const entry = res.body.members.find((m: { user_id: number }) => m.user_id === bot.user.id);
    expect(entry).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: org.owner.user.id });
  });

  it('sends a null avatar_url for Gravatars only with client_gravatar', async () => {
    const withGravatar = await get('/users?client_gravatar=true', org.owner.auth);
    const without = await get('/users?client_gravatar=false', org.owner.auth);
    const mine = (body: { members: { user_id: number; avatar_url: string | null }[] }) =>
      body.members.find((m) => m.user_id === org.owner.user.id)!;
    expect(mine(withGravatar.body).avatar_url).toBeNull();
    expect(mine(without.body).avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
  });

  it('adds profile_data when include_custom_profile_fields is true', async () => {
    const res = await get('/users?include_custom_profile_fields=true', org.owner.auth);
    const mine = res.body.members.find((m: { user_id: number }) => m.user_id === org.owner.user.id);
    expect(mine.profile_data).toEqual({});
  });

  it('rejects a non-boolean flag with the parameter named', async () => {
    const res = await get('/users?client_gravatar=maybe', org.owner.auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'client_gravatar is not a boolean',
      code: 'BAD_REQUEST',
    });
  });

  it("shows delivery_email by the target user's visibility and the viewer's role", async () => {
    const hidden = await makeUser(t, org.realm);
    await t.db.user.update({
      where: { id: hidden.user.id },
      data: { emailAddressVisibility: EmailVisibility.ADMINS },
    });
    const member = await makeUser(t, org.realm, { role: Role.MEMBER });
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const guest = await makeUser(t, org.realm, { role: Role.GUEST });
    const seen = async (viewerAuth: string) =>
      (await get(`/users/${hidden.user.id}`, viewerAuth)).body.user.delivery_email;
    expect(await seen(admin.auth)).toBe(hidden.email);
    expect(await seen(member.auth)).toBeNull();
    expect(await seen(guest.auth)).toBeNull();
    expect(await seen(hidden.auth)).toBe(hidden.email);
  });
});

describe('GET /users/{user_id}', () => {
  it('returns one user', async () => {
    const member = await makeUser(t, org.realm, { fullName: 'Uma User' });
    const res = await get(`/users/${member.user.id}`, org.owner.auth);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/users/{user_id}', 'get', res.body);
    expect(res.body.user).toMatchObject({ user_id: member.user.id, full_name: 'Uma User' });
  });

  it('refuses an unknown or foreign user with BAD_REQUEST', async () => {
    const other = await makeRealm(t);
    for (const id of [999999, other.owner.user.id]) {
      const res = await get(`/users/${id}`, org.owner.auth);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
    }
  });
});
