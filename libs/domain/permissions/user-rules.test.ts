import { Role } from '../users/roles';
import { canDeactivateEmoji } from './emoji';
import { managesAllInvites, requireCanInviteAs } from './invites';
import {
  accessDependsOnConversations,
  canAdministerUsers,
  canChangeOwnName,
  requireGrantableRole,
} from './users';

const person = (id: number, role: number, isBot = false) => ({ id, role, isBot });
const owner = person(1, Role.OWNER);
const admin = person(2, Role.ADMINISTRATOR);
const moderator = person(3, Role.MODERATOR);
const member = person(4, Role.MEMBER);
const guest = person(5, Role.GUEST);
const bot = person(6, Role.MEMBER, true);

describe('user rules', () => {
  it('let administrators administer users', () => {
    expect([owner, admin, moderator, member, guest].filter(canAdministerUsers)).toEqual([
      owner,
      admin,
    ]);
    expect(canChangeOwnName(member, { nameChangesDisabled: true })).toBe(false);
    expect(canChangeOwnName(admin, { nameChangesDisabled: true })).toBe(true);
  });

  it('leave granting the owner role to owners, and never to bots', () => {
    expect(() => requireGrantableRole(admin, member, Role.OWNER)).toThrow(
      'Must be an organization owner',
    );
    expect(() => requireGrantableRole(admin, member, Role.MODERATOR)).not.toThrow();
    expect(() => requireGrantableRole(owner, member, Role.OWNER)).not.toThrow();
    expect(() => requireGrantableRole(null, member, Role.OWNER)).not.toThrow();
    expect(() => requireGrantableRole(owner, bot, Role.OWNER)).toThrow(
      'Bots cannot be organization owners',
    );
  });

  it("make only a guest's sight of people other than bots depend on conversations", () => {
    expect(accessDependsOnConversations(guest, member)).toBe(true);
    expect(accessDependsOnConversations(guest, bot)).toBe(false);
    expect(accessDependsOnConversations(member, guest)).toBe(false);
    expect(accessDependsOnConversations(guest)).toBe(true);
  });
});

describe('invitation rules', () => {
  it('grant roles no more privileged than the inviter', () => {
    expect(() => requireCanInviteAs(admin, Role.OWNER)).toThrow('Must be an organization owner');
    expect(() => requireCanInviteAs(owner, Role.OWNER)).not.toThrow();
    expect(() => requireCanInviteAs(moderator, Role.ADMINISTRATOR)).toThrow(
      'Must be an organization administrator',
    );
    expect(() => requireCanInviteAs(moderator, Role.MODERATOR)).not.toThrow();
    expect(() => requireCanInviteAs(member, Role.MODERATOR)).toThrow(
      'Must be an organization administrator',
    );
    expect(() => requireCanInviteAs(member, Role.MEMBER)).not.toThrow();
    expect(() => requireCanInviteAs(member, 250)).toThrow('Invalid invite_as');
  });

  it('let administrators manage every invitation and others their own', () => {
    expect(managesAllInvites(admin)).toBe(true);
    expect(managesAllInvites(member)).toBe(false);
  });
});

describe('custom emoji rules', () => {
  it('let the author or an administrator remove an emoji', () => {
    expect(canDeactivateEmoji(member, { authorId: member.id })).toBe(true);
    expect(canDeactivateEmoji(member, { authorId: admin.id })).toBe(false);
    expect(canDeactivateEmoji(admin, { authorId: member.id })).toBe(true);
  });
});
