import type { Express } from 'express';
import request from 'supertest';
import { createApiApp } from '../../apps/api/app';
import { makeUser, type TestUser } from '../../test/factories';
import type { TestContext } from '../../test/harness';
import { Role } from '../domain/users/roles';
import { attachPrincipalCache, principalCacheOf } from './principal-cache';
import { type Organization, organization } from '../../test/organization';
import { withoutTriggers } from '../../test/without-triggers';
import { waitFor } from '../../test/worker-factories';

// The API tier's cache as production runs it: entries dropped when PostgreSQL reports a change.
let t: TestContext;
let app: Express;
let org: Organization;
let stopFeed: () => Promise<void>;

beforeAll(async () => {
  org = await organization();
  ({ t } = org);
  stopFeed = await attachPrincipalCache(t, { ttlSeconds: 300, unfedTtlSeconds: 0 });
  app = createApiApp(t);
});
afterAll(async () => {
  await stopFeed();
  await org.close();
});

const me = (caller: TestUser) =>
  request(app).get('/api/v1/users/me').set('Host', org.host).set('Authorization', caller.auth);

const until = (check: () => Promise<boolean>, ms = 2_000) => waitFor(check, ms, 20);

describe('principal cache with PostgreSQL change notifications', () => {
  it('answers a known credential from memory', async () => {
    const user = await makeUser(t, org.realm);
    // Creating the user updated its row: that notification must arrive before the entry is
    // stored, or it drops the entry (as it should) after the test believes it cached.
    await principalCacheOf(t)?.settle();
    expect((await me(user)).status).toBe(200);
    await withoutTriggers(t.db, 'users', () =>
      t.db.user.update({ where: { id: user.user.id }, data: { isActive: false } }),
    );
    // No notification was sent, so the cached (active) account is still served.
    expect((await me(user)).status).toBe(200);
    // A change the triggers do report drops the entry: the account is then refused.
    await t.db.user.update({ where: { id: user.user.id }, data: { fullName: 'Renamed' } });
    await until(async () => (await me(user)).status === 401);
  });

  it('resolves a host that names no organization once, not for every credential', async () => {
    // A server reached by its address, as a generic HTTP client reaches it.
    const byAddress = (caller: TestUser) =>
      request(app)
        .get('/api/v1/users/me')
        .set('Host', '127.0.0.1:9991')
        .set('Authorization', caller.auth);
    const [first, second] = [await makeUser(t, org.realm), await makeUser(t, org.realm)];
    expect((await byAddress(first)).status).toBe(200);
    // A change the triggers do not report: a host looked up again would now reach a deactivated
    // organization, one answered from memory still reaches the active one.
    await withoutTriggers(t.db, 'realms', () =>
      t.db.realm.update({ where: { id: org.realm.id }, data: { deactivated: true } }),
    );
    try {
      const res = await byAddress(second);
      expect(res.status).toBe(200);
      expect(res.body.user_id).toBe(second.user.id);
    } finally {
      await t.db.realm.update({ where: { id: org.realm.id }, data: { deactivated: false } });
    }
  });

  it('refuses a user deactivated through the API from the very next request', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const user = await makeUser(t, org.realm);
    expect((await me(user)).status).toBe(200);
    const res = await request(app)
      .delete(`/api/v1/users/${user.user.id}`)
      .set('Host', org.host)
      .set('Authorization', admin.auth);
    expect(res.status).toBe(200);
    const after = await me(user);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('USER_DEACTIVATED');
  });

  it('shows a role changed by an administrator, and a name changed by the user, at once', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const user = await makeUser(t, org.realm);
    expect((await me(user)).body.role).toBe(Role.MEMBER);
    const promoted = await request(app)
      .patch(`/api/v1/users/${user.user.id}`)
      .set('Host', org.host)
      .set('Authorization', admin.auth)
      .type('form')
      .send({ role: String(Role.MODERATOR) });
    expect(promoted.status).toBe(200);
    expect((await me(user)).body.role).toBe(Role.MODERATOR);
    const renamed = await request(app)
      .patch('/api/v1/settings')
      .set('Host', org.host)
      .set('Authorization', user.auth)
      .type('form')
      .send({ full_name: 'New Name' });
    expect(renamed.status).toBe(200);
    expect((await me(user)).body.full_name).toBe('New Name');
  });

  it('refuses a user deactivated by another process within moments', async () => {
    const user = await makeUser(t, org.realm);
    expect((await me(user)).status).toBe(200);
    await t.db.user.update({ where: { id: user.user.id }, data: { isActive: false } });
    const started = Date.now();
    await until(async () => (await me(user)).status === 401);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('shows an organization change to the next unauthenticated request', async () => {
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    const settings = () => request(app).get('/api/v1/server_settings').set('Host', org.host);
    expect((await settings()).body.realm_name).toBe(org.realm.name);
    const res = await request(app)
      .patch('/api/v1/realm')
      .set('Host', org.host)
      .set('Authorization', admin.auth)
      .type('form')
      .send({ name: 'Renamed organization' });
    expect(res.status).toBe(200);
    expect((await settings()).body.realm_name).toBe('Renamed organization');
  });

  it('looks every credential up while the feed is down, and caches again once it is back', async () => {
    const user = await makeUser(t, org.realm);
    expect((await me(user)).status).toBe(200);
    await t.db.$executeRawUnsafe(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND (query LIKE 'LISTEN%' OR query LIKE '%principal_changes_barrier%')`,
    );
    await until(async () => principalCacheOf(t)?.listening === false, 2_000).catch(() => {
      // The feed may already be back; either way the entry was dropped by its reset.
    });
    await withoutTriggers(t.db, 'users', () =>
      t.db.user.update({ where: { id: user.user.id }, data: { isActive: false } }),
    );
    // Unreported, yet refused: the cache was emptied when the feed stopped or restarted.
    expect((await me(user)).status).toBe(401);
    await t.db.user.update({ where: { id: user.user.id }, data: { isActive: true } });
    await until(async () => principalCacheOf(t)?.listening === true, 5_000);
    expect((await me(user)).status).toBe(200);
  });
});
