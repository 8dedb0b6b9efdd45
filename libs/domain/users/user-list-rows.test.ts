import { Prisma } from '../../../generated/prisma/client';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import type { Tx } from '../../db/client';
import { EmailVisibility } from '../permissions/email-visibility';
import { Role } from './roles';
import { listUsers } from './list-users';
import { readUserListRows, userListRowsInSnapshot, type UserListRows } from './user-list-rows';

let t: TestContext;
let org: TestRealm;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await startTestContext();
  org = await makeRealm(t);
  alice = await makeUser(t, org.realm, { fullName: 'Alice' });
  bob = await makeUser(t, org.realm, { fullName: 'Bob' });
});
afterAll(() => t.close());

/** The rows as a registration reads them: in a repeatable-read transaction. */
const inSnapshot = <T>(read: (tx: Tx) => Promise<T>) =>
  t.db.$transaction(read, { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead });

const rowsNow = () => inSnapshot((tx) => userListRowsInSnapshot(tx, org.realm.id));

/** What the rows say, to compare with a fresh read. */
const contents = (rows: UserListRows) => ({
  users: rows.users,
  profiles: [...rows.profiles],
});

describe('the user rows a registration reads', () => {
  it('are the same rows while nothing changed, and read again after each change', async () => {
    const first = await rowsNow();
    expect(await rowsNow()).toBe(first);

    await t.db.user.update({ where: { id: bob.user.id }, data: { fullName: 'Robert' } });
    const renamed = await rowsNow();
    expect(renamed).not.toBe(first);
    expect(renamed.users.find((u) => u.id === bob.user.id)?.fullName).toBe('Robert');

    const field = await t.db.customProfileField.create({
      data: { realmId: org.realm.id, name: 'Team', type: 1 },
    });
    // A new field with no values changes no user's list entry.
    expect(await rowsNow()).toBe(renamed);
    const value = await t.db.customProfileFieldValue.create({
      data: { userId: alice.user.id, fieldId: field.id, value: 'Platform' },
    });
    const valued = await rowsNow();
    expect(valued.profiles.get(alice.user.id)).toEqual({ [field.id]: { value: 'Platform' } });
    await t.db.customProfileFieldValue.update({ where: { id: value.id }, data: { value: 'Web' } });
    expect((await rowsNow()).profiles.get(alice.user.id)).toEqual({ [field.id]: { value: 'Web' } });
    await t.db.customProfileFieldValue.delete({ where: { id: value.id } });
    expect((await rowsNow()).profiles.get(alice.user.id)).toEqual({});

    const carol = await makeUser(t, org.realm, { fullName: 'Carol' });
    const joined = await rowsNow();
    expect(joined.users.map((u) => u.id)).toContain(carol.user.id);
    expect(contents(joined)).toEqual(contents(await readUserListRows(t.db, org.realm.id)));
  });

  it('are those of the snapshot, not of changes committed after it began', async () => {
    const before = await rowsNow();
    const seen = await inSnapshot(async (tx) => {
      // The snapshot starts with the first statement.
      await tx.$queryRaw`SELECT 1`;
      await t.db.user.update({ where: { id: alice.user.id }, data: { fullName: 'Alicia' } });
      return userListRowsInSnapshot(tx, org.realm.id);
    });
    expect(seen).toBe(before);
    expect((await rowsNow()).users.find((u) => u.id === alice.user.id)?.fullName).toBe('Alicia');
  });
});

describe('a list formatted once for every viewer of a role', () => {
  it('is what formatting for each viewer gives, delivery emails included', async () => {
    // Bob's address is for administrators only; each sees their own.
    await t.db.user.update({
      where: { id: bob.user.id },
      data: { emailAddressVisibility: EmailVisibility.ADMINS },
    });
    const admin = await makeUser(t, org.realm, { role: Role.ADMINISTRATOR });
    for (const viewer of [alice.user, bob.user, admin.user]) {
      const options = {
        viewer: await t.db.user.findUniqueOrThrow({ where: { id: viewer.id } }),
        realm: org.realm,
        clientGravatar: false,
        includeCustomProfileFields: true,
      };
      const rows = await rowsNow();
      const shared = await inSnapshot((tx) => listUsers({ ...t, db: tx }, { ...options, rows }));
      expect(shared).toEqual(await listUsers(t, options));
    }
  });
});
