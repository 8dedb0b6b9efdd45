import { guestAccessOrganization } from '../../../test/guest-access-organization';
import { postDirect } from '../../../test/message-factories';
import type { Organization } from '../../../test/organization';
import type { User } from '../../../generated/prisma/client';
import { checkAccess, Permission } from './access';
import {
  accessibleUserIds,
  guestAccessRestricted,
  isOnlyOwner,
  pairsSharingConversation,
  realmUserAudience,
  usersWhoCanAccess,
} from './users';

/** Gus the guest shares #shared with Alice and nothing with Bob (see guestAccessOrganization). */
let org: Organization;

beforeAll(async () => {
  org = await guestAccessOrganization();
});
afterAll(() => org.close());

const restrictGuests = (restricted: boolean) =>
  org.t.db.realm.update({
    where: { id: org.realm.id },
    data: {
      canAccessAllUsersGroupId: org.systemGroups[restricted ? 'role:members' : 'role:everyone'],
    },
  });

/** `Permission.UserRead`, of one user. */
const mayRead = async (viewer: User, target: User) =>
  (
    await checkAccess(org.t.db, {
      auth: { user: viewer },
      permission: Permission.UserRead,
      ids: [target.id],
    })
  ).has(target.id);

describe('user access (can_access_all_users_group)', () => {
  afterEach(() => restrictGuests(false));

  it('lets everyone access everyone while the setting is role:everyone', async () => {
    const { guest, bob } = org.users;
    expect(await guestAccessRestricted(org.t.db, org.realm.id)).toBe(false);
    expect(await accessibleUserIds(org.t.db, guest.user)).toBeNull();
    expect(await mayRead(guest.user, bob.user)).toBe(true);
    expect(new Set(await usersWhoCanAccess(org.t.db, bob.user))).toEqual(
      new Set(await realmUserAudience(org.t.db, org.realm.id)),
    );
  });

  it('limits a guest to themselves, bots and those they share a conversation with', async () => {
    const { alice, bob, guest, bot } = org.users;
    await restrictGuests(true);
    expect(await guestAccessRestricted(org.t.db, org.realm.id)).toBe(true);
    expect(await accessibleUserIds(org.t.db, guest.user)).toEqual(
      new Set([guest.user.id, alice.user.id]),
    );
    expect(await mayRead(guest.user, alice.user)).toBe(true);
    expect(await mayRead(guest.user, bob.user)).toBe(false);
    expect(await mayRead(guest.user, bot.user)).toBe(true);
    // Members are not limited.
    expect(await accessibleUserIds(org.t.db, alice.user)).toBeNull();

    expect(await usersWhoCanAccess(org.t.db, alice.user)).toContain(guest.user.id);
    expect(await usersWhoCanAccess(org.t.db, bob.user)).not.toContain(guest.user.id);
    expect(await usersWhoCanAccess(org.t.db, bob.user)).toContain(alice.user.id);
    expect(await usersWhoCanAccess(org.t.db, bot.user)).toContain(guest.user.id);
  });

  it('opens access through a direct-message conversation', async () => {
    const { guest } = org.users;
    await restrictGuests(true);
    const pair: [number, number] = [guest.user.id, org.owner.user.id];
    expect(await pairsSharingConversation(org.t.db, [pair])).toEqual(new Set());
    expect(await mayRead(guest.user, org.owner.user)).toBe(false);
    await postDirect(org.t, org.realm, org.owner.user, [guest.user], 'hello');
    expect(await pairsSharingConversation(org.t.db, [pair])).toEqual(new Set([pair.join(':')]));
    expect(await mayRead(guest.user, org.owner.user)).toBe(true);
  });

  it('answers what pairs shared before, ignoring the subscriptions just added', async () => {
    const { guest, alice } = org.users;
    const pair: [number, number] = [guest.user.id, alice.user.id];
    const shared = org.channels.shared;
    expect(await pairsSharingConversation(org.t.db, [pair])).toEqual(new Set([pair.join(':')]));
    const ignoring = [{ userId: guest.user.id, recipientId: shared.recipientId! }];
    expect(await pairsSharingConversation(org.t.db, [pair], ignoring)).toEqual(new Set());
    expect(await pairsSharingConversation(org.t.db, [])).toEqual(new Set());
  });
});

describe('the only owner', () => {
  it('is the single active human owner', async () => {
    const { alice } = org.users;
    expect(await isOnlyOwner(org.t.db, org.owner.user)).toBe(true);
    expect(await isOnlyOwner(org.t.db, alice.user)).toBe(false);
  });
});
