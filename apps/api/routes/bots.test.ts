import { makeUser, type TestUser } from '../../../test/factories';
import { basicAuth, type TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let member: TestUser;
let guest: TestUser;

beforeAll(async () => {
  org = await organization({ members: { member: 'member', guest: 'guest' } });
  ({ t } = org);
  ({ member, guest } = org.users);
});
afterAll(() => org.close());

let counter = 0;
const shortName = () => `b${Date.now().toString(36)}${counter++}`;

async function createOutgoing(who: TestUser, extra: Record<string, string> = {}) {
  return org.as(who).post('/bots', {
    full_name: `Out ${counter}`,
    short_name: shortName(),
    bot_type: '3',
    payload_url: JSON.stringify('http://127.0.0.1:9/hook'),
    ...extra,
  });
}

describe('POST /bots', () => {
  it('creates a generic bot owned by the caller', async () => {
    const name = shortName();
    const res = await org
      .as(member)
      .post('/bots', { full_name: 'Generic Helper', short_name: name });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: 'success', msg: '' });
    expect(res.body.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    const bot = await t.db.user.findUniqueOrThrow({ where: { id: res.body.user_id } });
    expect(bot).toMatchObject({
      isBot: true,
      botType: 1,
      botOwnerId: member.user.id,
      email: `${name}-bot@${org.host}`,
      fullName: 'Generic Helper',
    });
    const me = await org.as({ auth: basicAuth(bot.email, res.body.api_key) }).get('/users/me');
    expect(me.status).toBe(200);
  });

  it('creates an outgoing-webhook bot with a service and an alphanumeric token', async () => {
    const res = await createOutgoing(member, { interface: '2', service_name: 'svc' });
    expect(res.status).toBe(200);
    const services = await t.db.service.findMany({ where: { userId: res.body.user_id } });
    expect(services).toHaveLength(1);
    expect(services[0]).toMatchObject({
      name: 'svc',
      baseUrl: 'http://127.0.0.1:9/hook',
      interface: 2,
    });
    expect(services[0].token).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it('accepts Zulip’s interface_type spelling and defaults to the native interface', async () => {
    const a = await createOutgoing(member);
    const b = await createOutgoing(member, { interface_type: '2' });
    const [sa, sb] = await Promise.all([
      t.db.service.findFirstOrThrow({ where: { userId: a.body.user_id } }),
      t.db.service.findFirstOrThrow({ where: { userId: b.body.user_id } }),
    ]);
    expect(sa.interface).toBe(1);
    expect(sb.interface).toBe(2);
  });

  it('refuses an outgoing bot without a valid payload_url and changes nothing', async () => {
    const before = await t.db.user.count();
    const res = await org
      .as(member)
      .post('/bots', { full_name: 'No Url', short_name: shortName(), bot_type: '3' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'payload_url is not a URL',
      code: 'BAD_REQUEST',
    });
    const bad = await createOutgoing(member, { payload_url: 'ftp://x' });
    expect(bad.body.msg).toBe('payload_url is not a URL');
    expect(await t.db.user.count()).toBe(before);
  });

  it('refuses a bad interface, a bad bot type, a bad short name and a taken one', async () => {
    expect((await createOutgoing(member, { interface: '7' })).body.msg).toBe(
      'Invalid interface type',
    );
    const badType = await org
      .as(member)
      .post('/bots', { full_name: 'X', short_name: shortName(), bot_type: '9' });
    expect(badType.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid bot type' });
    const badName = await org
      .as(member)
      .post('/bots', { full_name: 'X', short_name: 'no spaces allowed' });
    expect(badName.body.msg).toBe('Bad name or username');
    const name = shortName();
    await org.as(member).post('/bots', { full_name: 'X', short_name: name });
    const dup = await org.as(member).post('/bots', { full_name: 'Y', short_name: name });
    expect(dup.status).toBe(400);
    expect(dup.body.msg).toBe('Username already in use');
  });

  it('reports a missing argument', async () => {
    const res = await org.as(member).post('/bots', { full_name: 'X' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'short_name' });
  });

  it('refuses guests (not in can_create_bots_group)', async () => {
    const res = await org.as(guest).post('/bots', { full_name: 'G', short_name: shortName() });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      msg: 'Insufficient permission',
      code: 'BAD_REQUEST',
    });
  });

  it('follows can_create_bots_group: a member outside it can only create incoming-webhook bots', async () => {
    const groups = await t.db.userGroup.findMany({
      where: { realmId: org.realm.id, isSystemGroup: true },
    });
    const admins = groups.find((g) => g.name === 'role:administrators')!;
    const members = groups.find((g) => g.name === 'role:members')!;
    await t.db.realm.update({
      where: { id: org.realm.id },
      data: { canCreateBotsGroupId: admins.id },
    });
    try {
      const generic = await org
        .as(member)
        .post('/bots', { full_name: 'G', short_name: shortName() });
      expect(generic.body.msg).toBe('Insufficient permission');
      const incoming = await org
        .as(member)
        .post('/bots', { full_name: 'I', short_name: shortName(), bot_type: '2' });
      expect(incoming.status).toBe(200);
      const byAdmin = await org
        .as(org.owner)
        .post('/bots', { full_name: 'A', short_name: shortName() });
      expect(byAdmin.status).toBe(200);
    } finally {
      await t.db.realm.update({
        where: { id: org.realm.id },
        data: { canCreateBotsGroupId: members.id },
      });
    }
  });
});

describe('GET /bots', () => {
  it('lists the caller’s bots with services; administrators see all', async () => {
    const other = await makeUser(t, org.realm);
    const mine = await createOutgoing(other);
    const res = await org.as(other).get('/bots');
    expect(res.status).toBe(200);
    expect(res.body.bots).toHaveLength(1);
    const service = await t.db.service.findFirstOrThrow({ where: { userId: mine.body.user_id } });
    expect(res.body.bots[0]).toMatchObject({
      user_id: mine.body.user_id,
      bot_type: 3,
      api_key: mine.body.api_key,
      owner: other.email,
      is_active: true,
      services: [{ base_url: 'http://127.0.0.1:9/hook', interface: 1, token: service.token }],
    });
    const asAdmin = await org.as(org.owner).get('/bots');
    const ids = asAdmin.body.bots.map((b: { user_id: number }) => b.user_id);
    expect(ids).toContain(mine.body.user_id);
    const asMember = await org.as(member).get('/bots');
    expect(asMember.body.bots.map((b: { user_id: number }) => b.user_id)).not.toContain(
      mine.body.user_id,
    );
  });
});

describe('PATCH /bots/{id}, DELETE, api_key/regenerate, zuliprc', () => {
  it('updates name, payload URL and interface for the owner', async () => {
    const created = await createOutgoing(member);
    const res = await org.as(member).patch(`/bots/${created.body.user_id}`, {
      full_name: 'Renamed Bot',
      service_payload_url: JSON.stringify('https://example.com/new'),
      service_interface: '2',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      full_name: 'Renamed Bot',
      service_payload_url: 'https://example.com/new',
      service_interface: 2,
    });
    const service = await t.db.service.findFirstOrThrow({
      where: { userId: created.body.user_id },
    });
    expect(service).toMatchObject({ baseUrl: 'https://example.com/new', interface: 2 });
  });

  it('refuses other members and unknown bots; administrators may', async () => {
    const created = await createOutgoing(member);
    const stranger = await makeUser(t, org.realm);
    const denied = await org
      .as(stranger)
      .patch(`/bots/${created.body.user_id}`, { full_name: 'Nope' });
    expect(denied.body).toEqual({
      result: 'error',
      msg: 'Insufficient permission',
      code: 'BAD_REQUEST',
    });
    const missing = await org.as(member).patch('/bots/999999', { full_name: 'x' });
    expect(missing.body).toEqual({ result: 'error', msg: 'No such bot', code: 'BAD_REQUEST' });
    const byAdmin = await org
      .as(org.owner)
      .patch(`/bots/${created.body.user_id}`, { full_name: 'Admin Set' });
    expect(byAdmin.status).toBe(200);
  });

  it('regenerates the API key: the old one stops working', async () => {
    const created = await createOutgoing(member);
    const bot = await t.db.user.findUniqueOrThrow({ where: { id: created.body.user_id } });
    const res = await org.as(member).post(`/bots/${bot.id}/api_key/regenerate`);
    expect(res.status).toBe(200);
    expect(res.body.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(res.body.api_key).not.toBe(created.body.api_key);
    const me = (key: string) => org.as({ auth: basicAuth(bot.email, key) }).get('/users/me');
    expect((await me(created.body.api_key)).status).toBe(401);
    expect((await me(res.body.api_key)).status).toBe(200);
  });

  it('serves the zuliprc with the outgoing token', async () => {
    const created = await createOutgoing(member);
    const bot = await t.db.user.findUniqueOrThrow({ where: { id: created.body.user_id } });
    const service = await t.db.service.findFirstOrThrow({ where: { userId: bot.id } });
    const res = await org.as(member).get(`/bots/${bot.id}/zuliprc`);
    expect(res.status).toBe(200);
    expect(res.body.zuliprc).toBe(
      `[api]\nemail=${bot.email}\nkey=${created.body.api_key}\nsite=http://${org.host}\ntoken=${service.token}\n`,
    );
    const denied = await org.as(guest).get(`/bots/${bot.id}/zuliprc`);
    expect(denied.body.msg).toBe('Insufficient permission');
  });

  it('deactivates a bot; it leaves GET /bots and cannot authenticate', async () => {
    const created = await createOutgoing(member);
    const res = await org.as(member).delete(`/bots/${created.body.user_id}`);
    expect(res.status).toBe(200);
    const bot = await t.db.user.findUniqueOrThrow({ where: { id: created.body.user_id } });
    expect(bot.isActive).toBe(false);
    const list = await org.as(member).get('/bots');
    expect(list.body.bots.map((b: { user_id: number }) => b.user_id)).not.toContain(bot.id);
    const again = await org.as(member).delete(`/bots/${bot.id}`);
    expect(again.body.msg).toBe('No such bot');
  });
});
