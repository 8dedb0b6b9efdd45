import { register } from '../../../test/events-factories';
import { makeBot, makeRealm, makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { api } from '../../../test/requests';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
});
afterAll(() => org.close());

const post = (who: TestUser, form: Record<string, string | number | boolean>) =>
  org.as(who).post('/users/me/presence', form);

describe('POST /users/me/presence', () => {
  it('records presence, sends a presence event on coming online, and returns the legacy format', async () => {
    const member = await makeUser(t, org.realm);
    const mark = await outboxMark(t);
    const res = await post(member, { status: 'active' });
    expect(res.status).toBe(200);
    expect(res.body.presences[member.email]).toEqual({
      website: {
        client: 'website',
        status: 'active',
        timestamp: expect.any(Number),
        pushable: false,
      },
      aggregated: { client: 'website', status: 'active', timestamp: expect.any(Number) },
    });
    expect(typeof res.body.server_timestamp).toBe('number');
    expect(res.body.zephyr_mirror_active).toBe(false);
    const events = await eventsAfter(t, mark);
    expect(events).toHaveLength(1);
    expect(events[0].event).toMatchObject({
      type: 'presence',
      user_id: member.user.id,
      email: member.email,
      presence: { website: { client: 'website', status: 'active', pushable: false } },
    });
    expect(events[0].users).toContain(org.owner.user.id);

    // A second report right away changes nothing and sends no event.
    const mark2 = await outboxMark(t);
    expect((await post(member, { status: 'active' })).status).toBe(200);
    expect(await eventsAfter(t, mark2)).toHaveLength(0);
  });

  it('uses the modern format with last_update_id or slim_presence and returns only newer rows', async () => {
    const a = await makeUser(t, org.realm);
    const b = await makeUser(t, org.realm);
    await post(a, { status: 'idle' });
    const first = await post(b, { status: 'active', last_update_id: -1 });
    expect(first.status).toBe(200);
    expect(first.body.presences[String(a.user.id)]).toEqual({
      active_timestamp: expect.any(Number),
      idle_timestamp: expect.any(Number),
    });
    const id = first.body.presence_last_update_id;
    expect(id).toBeGreaterThan(0);
    const none = await post(b, { status: 'active', last_update_id: id });
    expect(none.body.presences).toEqual({});
    expect(none.body.presence_last_update_id).toBe(id);

    // a becomes active after a minute: only a's row is newer.
    await t.db.userPresence.update({
      where: { userId: a.user.id },
      data: { lastConnectedTime: new Date(Date.now() - 120_000) },
    });
    await post(a, { status: 'active' });
    const newer = await post(b, { status: 'active', last_update_id: id });
    expect(Object.keys(newer.body.presences)).toEqual([String(a.user.id)]);
    expect(newer.body.presence_last_update_id).toBeGreaterThan(id);

    const slim = await post(b, { status: 'active', slim_presence: true });
    expect(slim.body.presences[String(b.user.id)]).toHaveProperty('active_timestamp');
  });

  it('leaves out presence older than history_limit_days', async () => {
    const old = await makeUser(t, org.realm);
    await post(old, { status: 'active' });
    await t.db.userPresence.update({
      where: { userId: old.user.id },
      data: {
        lastConnectedTime: new Date(Date.now() - 5 * 86_400_000),
        lastActiveTime: new Date(Date.now() - 5 * 86_400_000),
      },
    });
    const viewer = await makeUser(t, org.realm);
    const wide = await post(viewer, { status: 'active', last_update_id: -1 });
    expect(wide.body.presences).toHaveProperty(String(old.user.id));
    const narrow = await post(viewer, {
      status: 'active',
      last_update_id: -1,
      history_limit_days: 2,
    });
    expect(narrow.body.presences).not.toHaveProperty(String(old.user.id));
  });

  it('answers ping_only without presence data', async () => {
    const member = await makeUser(t, org.realm);
    const res = await post(member, { status: 'idle', ping_only: true });
    expect(res.body).toEqual({ result: 'success', msg: '', presence_last_update_id: -1 });
  });

  it('does not record invisible users', async () => {
    const member = await makeUser(t, org.realm);
    await t.db.user.update({ where: { id: member.user.id }, data: { presenceEnabled: false } });
    const res = await post(member, { status: 'active' });
    expect(res.status).toBe(200);
    expect(res.body.presences).not.toHaveProperty(member.email);
    expect(await t.db.userPresence.count({ where: { userId: member.user.id } })).toBe(0);
  });

  it('refuses an invalid or missing status', async () => {
    const member = await makeUser(t, org.realm);
    const bad = await post(member, { status: 'away' });
    expect(bad.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid status: away' });
    const missing = await post(member, {});
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'status' });
  });
});

describe('GET /realm/presence', () => {
  it('lists everyone recently connected in the legacy format', async () => {
    const member = await makeUser(t, org.realm);
    await post(member, { status: 'active' });
    const res = await org.as(org.owner).get('/realm/presence');
    expect(res.status).toBe(200);
    expectOpenApiResponse('/realm/presence', 'get', res.body);
    expect(res.body.presences[member.email].aggregated.status).toBe('active');
  });
});

describe('POST /register presence', () => {
  it('agrees with GET /realm/presence in both formats, with one rule for active and idle', async () => {
    const own = await makeRealm(t);
    const call = (
      method: 'get' | 'post' | 'patch',
      path: string,
      auth: string,
      form?: Record<string, string | number | boolean>,
    ) => api(t, own.host, method, path, auth, form);
    const [active, idle, invisible, old] = await Promise.all(
      [1, 2, 3, 4].map(() => makeUser(t, own.realm)),
    );
    for (const u of [active, idle, invisible, old]) {
      expect((await call('post', '/users/me/presence', u.auth, { status: 'active' })).status).toBe(
        200,
      );
    }
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    // Last active 100 s before the last connection: idle by Zulip's 70 s legacy offset.
    await t.db.userPresence.update({
      where: { userId: idle.user.id },
      data: { lastActiveTime: ago(110), lastConnectedTime: ago(10) },
    });
    await t.db.userPresence.update({
      where: { userId: old.user.id },
      data: { lastActiveTime: ago(20 * 86_400), lastConnectedTime: ago(20 * 86_400) },
    });
    // Joined a day ago: with no active time, presence falls back to the join date (as Zulip's).
    await t.db.user.update({ where: { id: invisible.user.id }, data: { dateJoined: ago(86_400) } });
    expect(
      (await call('patch', '/settings', invisible.auth, { presence_enabled: false })).status,
    ).toBe(200);

    const realmWide = await call('get', '/realm/presence', own.owner.auth);
    expect(realmWide.status).toBe(200);
    const legacy = await register(t, own.host, own.owner.auth, {
      fetch_event_types: JSON.stringify(['presence']),
    });
    expect(legacy.presences).toEqual(realmWide.body.presences);
    expect(Object.keys(legacy.presences as object).sort()).toEqual(
      [active.email, idle.email, invisible.email].sort(),
    );
    const shown = realmWide.body.presences as Record<string, { aggregated: { status: string } }>;
    expect(shown[active.email].aggregated.status).toBe('active');
    expect(shown[idle.email].aggregated.status).toBe('idle');
    expect(shown[invisible.email].aggregated.status).toBe('idle');

    const modern = await register(t, own.host, own.owner.auth, {
      fetch_event_types: JSON.stringify(['presence']),
      slim_presence: 'true',
    });
    const rows = await t.db.userPresence.findMany({
      where: { realmId: own.realm.id },
      include: { user: { select: { dateJoined: true } } },
    });
    const recent = rows.filter((r) => r.userId !== old.user.id);
    // A missing active time falls back to the join date, as in Zulip.
    const seconds = (d: Date | null, joined: Date) => Math.floor((d ?? joined).getTime() / 1000);
    expect(modern.presences).toEqual(
      Object.fromEntries(
        recent.map((r) => [
          String(r.userId),
          {
            active_timestamp: seconds(r.lastActiveTime, r.user.dateJoined),
            idle_timestamp: seconds(r.lastConnectedTime, r.user.dateJoined),
          },
        ]),
      ),
    );
    // The invisible user's row was replaced by one without activity, connected long ago.
    const invisibleRow = recent.find((r) => r.userId === invisible.user.id);
    expect(invisibleRow?.lastActiveTime).toBeNull();
    expect(Date.now() - (invisibleRow?.lastConnectedTime?.getTime() ?? 0)).toBeGreaterThan(140_000);
    const maxId = Math.max(...recent.map((r) => Number(r.lastUpdateId)));
    for (const state of [legacy, modern]) expect(state.presence_last_update_id).toBe(maxId);
    // The client's presence timings are server settings, which Zulip sends with `realm`.
    const timings = await register(t, own.host, own.owner.auth, {
      fetch_event_types: JSON.stringify(['realm']),
    });
    expect(timings.server_presence_offline_threshold_seconds).toBe(140);
    expect(timings.server_presence_ping_interval_seconds).toBe(60);

    const longer = await register(t, own.host, own.owner.auth, {
      fetch_event_types: JSON.stringify(['presence']),
      slim_presence: 'true',
      presence_history_limit_days: '30',
    });
    expect(longer.presences).toHaveProperty(String(old.user.id));
    const none = await register(t, own.host, own.owner.auth, {
      fetch_event_types: JSON.stringify(['presence']),
      presence_history_limit_days: '0',
    });
    expect(none.presences).toEqual({});
    expect(none.presence_last_update_id).toBe(-1);
  });
});

describe('GET /users/{user_id_or_email}/presence', () => {
  it('returns one user by ID or email, with offline when stale', async () => {
    const member = await makeUser(t, org.realm);
    await post(member, { status: 'active' });
    const byId = await org.as(org.owner).get(`/users/${member.user.id}/presence`);
    expect(byId.status).toBe(200);
    expectOpenApiResponse('/users/{user_id_or_email}/presence', 'get', byId.body);
    expect(byId.body.presence.aggregated).toEqual({
      status: 'active',
      timestamp: expect.any(Number),
    });
    const byEmail = await org.as(org.owner).get(`/users/${member.email}/presence`);
    expect(byEmail.body.presence).toEqual(byId.body.presence);

    const hourAgo = new Date(Date.now() - 3_600_000);
    await t.db.userPresence.update({
      where: { userId: member.user.id },
      data: { lastConnectedTime: hourAgo, lastActiveTime: hourAgo },
    });
    const stale = await org.as(org.owner).get(`/users/${member.user.id}/presence`);
    expect(stale.body.presence.aggregated.status).toBe('offline');
    expect(stale.body.presence.website.status).toBe('active');
  });

  it('refuses bots, unknown users and users without presence data', async () => {
    const bot = await makeBot(t, org.realm, org.owner.user);
    const quiet = await makeUser(t, org.realm);
    const botRes = await org.as(org.owner).get(`/users/${bot.user.id}/presence`);
    expect(botRes.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'Presence is not supported for bot users.',
    });
    const none = await org.as(org.owner).get(`/users/${quiet.user.id}/presence`);
    expect(none.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: `No presence data for ${quiet.user.id}`,
    });
    const unknown = await org.as(org.owner).get('/users/nobody@example.com/presence');
    expect(unknown.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'No such user' });
  });
});
