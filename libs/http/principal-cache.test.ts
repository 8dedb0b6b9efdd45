import type { Request } from 'express';
import { makeUser } from '../../test/factories';
import type { TestContext } from '../../test/harness';
import { identifyPoller, pollerRealm } from './auth';
import { PrincipalCache } from './principal-cache';
import { type Organization, organization } from '../../test/organization';
import { withoutTriggers } from '../../test/without-triggers';

let t: TestContext;
let org: Organization;

beforeAll(async () => {
  org = await organization({});
  ({ t } = org);
});
afterAll(() => org.close());

const pollers = { lookup: identifyPoller, realmRow: pollerRealm };

const pollRequest = (authorization: string) =>
  ({ headers: { host: org.host, authorization } }) as unknown as Request;

/** Basic credentials with the user's email and a key that is not theirs. */
const wrongKeyOf = (email: string) =>
  `Basic ${Buffer.from(`${email}:${'x'.repeat(32)}`).toString('base64')}`;

const deactivate = (id: number, isActive: boolean) =>
  t.db.user.update({ where: { id }, data: { isActive } });

describe('PrincipalCache', () => {
  it('trusts a checked credential for its lifetime, then checks again', async () => {
    const user = await makeUser(t, org.realm);
    const cache = new PrincipalCache({
      ttlSeconds: 0.5,
      unfedTtlSeconds: 0.5,
      ...pollers,
    });
    const first = await cache.authenticate(t, pollRequest(user.auth));
    expect(first.user.id).toBe(user.user.id);
    await deactivate(user.user.id, false);
    expect((await cache.authenticate(t, pollRequest(user.auth))).user.id).toBe(user.user.id);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await expect(cache.authenticate(t, pollRequest(user.auth))).rejects.toMatchObject({
      code: 'USER_DEACTIVATED',
    });
  });

  it('checks a credential in use again before it lapses, and drops it when that check fails', async () => {
    const user = await makeUser(t, org.realm);
    const cache = new PrincipalCache({ ttlSeconds: 4, unfedTtlSeconds: 4, ...pollers });
    await cache.authenticate(t, pollRequest(user.auth));
    await deactivate(user.user.id, false);
    // Past 90% of the lifetime a use is still answered from the cache, and starts a check.
    await new Promise((resolve) => setTimeout(resolve, 3650));
    expect((await cache.authenticate(t, pollRequest(user.auth))).user.id).toBe(user.user.id);
    await new Promise((resolve) => setTimeout(resolve, 250));
    // The check failed: the next poll, still inside the first lifetime, is refused.
    await expect(cache.authenticate(t, pollRequest(user.auth))).rejects.toMatchObject({
      code: 'USER_DEACTIVATED',
    });
  });

  it('never keeps a refusal: a reactivated account polls again at once', async () => {
    const user = await makeUser(t, org.realm);
    const cache = new PrincipalCache({
      ttlSeconds: 60,
      unfedTtlSeconds: 60,
      ...pollers,
    });
    await deactivate(user.user.id, false);
    await expect(cache.authenticate(t, pollRequest(user.auth))).rejects.toMatchObject({
      code: 'USER_DEACTIVATED',
    });
    await deactivate(user.user.id, true);
    expect((await cache.authenticate(t, pollRequest(user.auth))).user.id).toBe(user.user.id);
  });

  it('keys on the whole credential: another key for the same email is checked', async () => {
    const user = await makeUser(t, org.realm);
    const cache = new PrincipalCache({
      ttlSeconds: 60,
      unfedTtlSeconds: 60,
      ...pollers,
    });
    await cache.authenticate(t, pollRequest(user.auth));
    await expect(
      cache.authenticate(t, pollRequest(wrongKeyOf(user.user.email))),
    ).rejects.toMatchObject({
      code: 'INVALID_API_KEY',
    });
  });

  it('checks a new credential on a connection that carried another', async () => {
    const [alice, bob] = [await makeUser(t, org.realm), await makeUser(t, org.realm)];
    const cache = new PrincipalCache({ ttlSeconds: 60, unfedTtlSeconds: 60, ...pollers });
    const socket = {};
    const on = (authorization: string) =>
      ({ headers: { host: org.host, authorization }, socket }) as unknown as Request;
    expect((await cache.authenticate(t, on(alice.auth))).user.id).toBe(alice.user.id);
    expect((await cache.authenticate(t, on(alice.auth))).user.id).toBe(alice.user.id);
    expect((await cache.authenticate(t, on(bob.auth))).user.id).toBe(bob.user.id);
    await expect(cache.authenticate(t, on(wrongKeyOf(bob.user.email)))).rejects.toMatchObject({
      code: 'INVALID_API_KEY',
    });
    expect((await cache.authenticate(t, on(alice.auth))).user.id).toBe(alice.user.id);
  });

  it('trusts an entry for its long lifetime while a change feed listens', async () => {
    const user = await makeUser(t, org.realm);
    const cache = new PrincipalCache({
      ttlSeconds: 60,
      unfedTtlSeconds: 0.3,
      ...pollers,
    });
    const stop = await cache.listen(t.config.databaseUrl, () => undefined);
    try {
      await cache.authenticate(t, pollRequest(user.auth));
      // A write the change triggers do not report: only a lifetime's end would show it.
      await withoutTriggers(t.db, 'users', () => deactivate(user.user.id, false));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await cache.authenticate(t, pollRequest(user.auth))).user.id).toBe(user.user.id);
    } finally {
      await stop();
    }
  });

  it('keeps credentials through an organization change, reading its row once', async () => {
    const users = await Promise.all([...Array(10)].map(() => makeUser(t, org.realm)));
    let lookups = 0;
    let realmReads = 0;
    const cache = new PrincipalCache({
      ttlSeconds: 60,
      unfedTtlSeconds: 0,
      lookup: (c, req) => (lookups++, identifyPoller(c, req)),
      realmRow: (c, id) => (realmReads++, pollerRealm(c, id)),
    });
    const everyone = () =>
      Promise.all(users.map((u) => cache.authenticate(t, pollRequest(u.auth))));
    const stop = await cache.listen(t.config.databaseUrl, () => undefined);
    try {
      await everyone();
      await t.db.realm.update({ where: { id: org.realm.id }, data: { name: 'Renamed once' } });
      await cache.settle();
      expect((await everyone()).map((p) => p.user.id)).toEqual(users.map((u) => u.user.id));
      expect({ lookups, realmReads }).toEqual({ lookups: 10, realmReads: 1 });
      // A deactivation reaches every cached credential at once, through that one read.
      await t.db.realm.update({ where: { id: org.realm.id }, data: { deactivated: true } });
      await cache.settle();
      await expect(cache.authenticate(t, pollRequest(users[0]!.auth))).rejects.toMatchObject({
        code: 'REALM_DEACTIVATED',
      });
      expect(realmReads).toBe(2);
    } finally {
      await t.db.realm.update({ where: { id: org.realm.id }, data: { deactivated: false } });
      await stop();
    }
  });

  it('checks every time when its lifetime is zero', async () => {
    const user = await makeUser(t, org.realm);
    const cache = new PrincipalCache({ ttlSeconds: 0, unfedTtlSeconds: 0, ...pollers });
    await cache.authenticate(t, pollRequest(user.auth));
    await deactivate(user.user.id, false);
    await expect(cache.authenticate(t, pollRequest(user.auth))).rejects.toMatchObject({
      code: 'USER_DEACTIVATED',
    });
  });
});
