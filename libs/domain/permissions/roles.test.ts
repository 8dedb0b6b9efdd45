import { Role } from '../users/roles';
import {
  isAtLeastModerator,
  isOwnerRole,
  isRealmAdmin,
  isRealmGuest,
  isRealmMember,
  isRealmModerator,
  isRealmOwner,
  requireRealmOwner,
  roleFlags,
} from './roles';

const owner = { role: Role.OWNER };
const admin = { role: Role.ADMINISTRATOR };
const moderator = { role: Role.MODERATOR };
const member = { role: Role.MEMBER };
const guest = { role: Role.GUEST };
const everyone = [owner, admin, moderator, member, guest];
const holders = (rule: (u: { role: number }) => boolean) => everyone.filter(rule);

describe('role predicates', () => {
  it('rank owners above administrators above moderators above members above guests', () => {
    expect(holders(isRealmOwner)).toEqual([owner]);
    expect(holders(isRealmAdmin)).toEqual([owner, admin]);
    expect(holders(isAtLeastModerator)).toEqual([owner, admin, moderator]);
    expect(holders(isRealmModerator)).toEqual([moderator]);
    expect(holders(isRealmMember)).toEqual([member]);
    expect(holders(isRealmGuest)).toEqual([guest]);
  });

  it('tell the owner role code apart', () => {
    expect(isOwnerRole(Role.OWNER)).toBe(true);
    expect(isOwnerRole(Role.ADMINISTRATOR)).toBe(false);
  });

  it('give the is_admin, is_owner and is_guest flags of user JSON', () => {
    expect(roleFlags(owner)).toEqual({ is_admin: true, is_owner: true, is_guest: false });
    expect(roleFlags(admin)).toEqual({ is_admin: true, is_owner: false, is_guest: false });
    expect(roleFlags(member)).toEqual({ is_admin: false, is_owner: false, is_guest: false });
    expect(roleFlags(guest)).toEqual({ is_admin: false, is_owner: false, is_guest: true });
  });

  it('require an owner for owner-only settings', () => {
    expect(() => requireRealmOwner(owner)).not.toThrow();
    expect(() => requireRealmOwner(admin)).toThrow('Must be an organization owner');
  });
});
