import { BotType } from '../users/roles';
import {
  makeBot,
  makeRealm,
  makeUser,
  makeUserGroup,
  type TestUser,
} from '../../../test/factories';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { organization, type Organization } from '../../../test/organization';
import { canAccessAttachment } from './attachments';
import { checkAccess, Permission, requireAccess } from './access';
import { canCreateBot } from './bots';
import { canAddSubscribersInRealm, canCreateChannel, webPublicChannelsEnabled } from './channels';
import { canSeeDeliveryEmail, EmailVisibility } from './email-visibility';
import { canAddCustomEmoji } from './emoji';
import { canCreateMultiuseInvite, canInviteByEmail } from './invites';
import { canCreateUserGroups, requireGroupReader } from './user-groups';

let org: Organization<'admin' | 'moderator' | 'alice' | 'bob' | 'guest', 'lobby' | 'vault'>;

beforeAll(async () => {
  org = await organization({
    members: {
      admin: 'administrator',
      moderator: 'moderator',
      alice: 'member',
      bob: 'member',
      guest: 'guest',
    },
    channels: {
      lobby: ['alice'],
      vault: { subscribers: ['alice'], inviteOnly: true, historyPublicToSubscribers: true },
    },
  });
});
afterAll(() => org.close());

/** Which of the organization's people (owner first) the rule lets through. */
async function allowed(rule: (who: TestUser) => boolean | Promise<boolean>): Promise<string[]> {
  const people: [string, TestUser][] = [['owner', org.owner], ...Object.entries(org.users)];
  const out: string[] = [];
  for (const [name, who] of people) if (await rule(who)) out.push(name);
  return out;
}

describe('user groups', () => {
  it('let administrators, can_manage_all_groups and can_create_groups members create groups', async () => {
    const { bob } = org.users;
    const groups = org.systemGroups;
    const realm = {
      canCreateGroupsId: groups['role:moderators'],
      canManageAllGroupsId: await makeUserGroup(org.t, org.realm, { members: [bob.user] }),
    };
    expect(await allowed((who) => canCreateUserGroups(org.t.db, who.user, realm))).toEqual([
      'owner',
      'admin',
      'moderator',
      'bob',
    ]);
  });

  it("give each group setting's members its right, and managers all of them", async () => {
    const { alice, bob } = org.users;
    const groups = org.systemGroups;
    const joiners = await makeUserGroup(org.t, org.realm, { members: [alice.user] });
    const settings = {
      canManageGroupId: await makeUserGroup(org.t, org.realm, { members: [bob.user] }),
      canAddMembersGroupId: groups['role:nobody'],
      canJoinGroupId: joiners,
      canLeaveGroupId: groups['role:everyone'],
      canRemoveMembersGroupId: groups['role:nobody'],
    };
    const group = await makeUserGroup(org.t, org.realm, { settings });
    const rights = {
      manage: Permission.UserGroupManage,
      addOthers: Permission.UserGroupAddMembers,
      join: Permission.UserGroupJoin,
      leave: Permission.UserGroupLeave,
      removeOthers: Permission.UserGroupRemoveMembers,
    } as const;
    const access = async (who: TestUser, id = group) => {
      const out: Record<string, boolean> = {};
      for (const [right, permission] of Object.entries(rights)) {
        const allowed = await checkAccess(org.t.db, { auth: who, permission, ids: [id] });
        out[right] = allowed.has(id);
      }
      return out;
    };
    const everything = {
      manage: true,
      addOthers: true,
      join: true,
      leave: true,
      removeOthers: true,
    };
    expect(await access(bob)).toEqual(everything);
    expect(await access(org.users.admin)).toEqual(everything);
    expect(await access(alice)).toEqual({
      manage: false,
      addOthers: false,
      join: true,
      leave: true,
      removeOthers: false,
    });
    expect(await access(org.users.guest)).toEqual({
      manage: false,
      addOthers: false,
      join: false,
      leave: true,
      removeOthers: false,
    });
    // System groups change only through roles.
    expect(await access(org.owner, groups['role:members'])).toEqual({
      manage: false,
      addOthers: false,
      join: false,
      leave: false,
      removeOthers: false,
    });
  });

  it("count the organization's can_manage_all_groups", async () => {
    const { alice } = org.users;
    const group = await makeUserGroup(org.t, org.realm);
    const manages = async () =>
      (
        await checkAccess(org.t.db, {
          auth: alice,
          permission: Permission.UserGroupManage,
          ids: [group],
        })
      ).has(group);
    expect(await manages()).toBe(false);
    const managers = await makeUserGroup(org.t, org.realm, { members: [alice.user] });
    await org.t.db.realm.update({
      where: { id: org.realm.id },
      data: { canManageAllGroupsId: managers },
    });
    try {
      expect(await manages()).toBe(true);
    } finally {
      await org.t.db.realm.update({
        where: { id: org.realm.id },
        data: { canManageAllGroupsId: org.realm.canManageAllGroupsId },
      });
    }
  });

  it('are read by members and administrators, not guests or bots', async () => {
    const bot = await makeBot(org.t, org.realm, org.users.alice.user);
    expect(() => requireGroupReader(org.users.alice.user)).not.toThrow();
    expect(() => requireGroupReader(org.users.guest.user)).toThrow('Not allowed for guest users');
    expect(() => requireGroupReader(bot.user)).toThrow(
      'This endpoint does not accept bot requests.',
    );
  });
});

describe('bots', () => {
  it('are created by can_create_bots_group, webhook bots also by the write-only group', async () => {
    const groups = org.systemGroups;
    const realm = {
      ...org.realm,
      canCreateBotsGroupId: groups['role:administrators'],
      canCreateWriteOnlyBotsGroupId: groups['role:members'],
    };
    const create = (type: number) => (who: TestUser) =>
      canCreateBot(org.t.db, realm, who.user, type);
    expect(await allowed(create(BotType.GENERIC))).toEqual(['owner', 'admin']);
    expect(await allowed(create(BotType.INCOMING_WEBHOOK))).toEqual([
      'owner',
      'admin',
      'moderator',
      'alice',
      'bob',
    ]);
  });

  it('are administered by their owner and administrators', async () => {
    const bot = await makeBot(org.t, org.realm, org.users.alice.user);
    const administers = (who: TestUser) =>
      checkAccess(org.t.db, {
        auth: who,
        permission: Permission.BotAdminister,
        ids: [bot.user.id],
      });
    expect(await allowed(async (who) => (await administers(who)).has(bot.user.id))).toEqual([
      'owner',
      'admin',
      'alice',
    ]);
    // A person is no bot to administer, even for an administrator.
    expect(
      await checkAccess(org.t.db, {
        auth: org.owner,
        permission: Permission.BotAdminister,
        ids: [org.users.alice.user.id],
      }),
    ).toEqual(new Set());
  });
});

describe('users', () => {
  type Asked =
    | Permission.UserAdminister
    | Permission.UserChangeRole
    | Permission.UserDeactivate
    | Permission.UserChangeEmail;
  /** Which of the organization's people may act on `target` with `permission`. */
  const actors = (permission: Asked, target: TestUser) =>
    allowed(async (who) =>
      (await checkAccess(org.t.db, { auth: who, permission, ids: [target.user.id] })).has(
        target.user.id,
      ),
    );
  const refusal = (permission: Asked, who: TestUser, target: TestUser) =>
    requireAccess(org.t.db, { auth: who, permission, ids: [target.user.id] });

  it('are administered by administrators, and their roles changed, an owner’s by owners', async () => {
    const { admin, bob } = org.users;
    expect(await actors(Permission.UserAdminister, bob)).toEqual(['owner', 'admin']);
    expect(await actors(Permission.UserChangeRole, bob)).toEqual(['owner', 'admin']);
    expect(await actors(Permission.UserChangeRole, org.owner)).toEqual(['owner']);
    await expect(refusal(Permission.UserChangeRole, admin, org.owner)).rejects.toThrow(
      'Must be an organization owner',
    );
    await expect(refusal(Permission.UserAdminister, bob, admin)).rejects.toThrow(
      'Insufficient permission',
    );
  });

  it('deactivate themselves, others as administrators, an owner as owners', async () => {
    const { admin, alice, bob } = org.users;
    expect(await actors(Permission.UserDeactivate, bob)).toEqual(['owner', 'admin', 'bob']);
    expect(await actors(Permission.UserDeactivate, org.owner)).toEqual(['owner']);
    await expect(refusal(Permission.UserDeactivate, admin, org.owner)).rejects.toThrow(
      'Must be an organization owner',
    );
    await expect(refusal(Permission.UserDeactivate, alice, bob)).rejects.toThrow(
      'Insufficient permission',
    );
  });

  it('have their emails changed by owners holding can_change_user_emails', async () => {
    const { bob } = org.users;
    expect(await actors(Permission.UserChangeEmail, bob)).toEqual([]);
    await org.t.db.user.update({
      where: { id: org.owner.user.id },
      data: { canChangeUserEmails: true },
    });
    try {
      expect(await actors(Permission.UserChangeEmail, bob)).toEqual(['owner']);
    } finally {
      await org.t.db.user.update({
        where: { id: org.owner.user.id },
        data: { canChangeUserEmails: false },
      });
    }
  });
});

describe('another organization', () => {
  it("answers for this organization's users, bots and groups only, either way", async () => {
    const other = await makeRealm(org.t);
    const ours = {
      user: org.users.bob.user.id,
      bot: (await makeBot(org.t, org.realm, org.users.bob.user)).user.id,
      group: await makeUserGroup(org.t, org.realm),
    };
    const theirs = {
      user: (await makeUser(org.t, other.realm)).user.id,
      bot: (await makeBot(org.t, other.realm, other.owner.user)).user.id,
      group: await makeUserGroup(org.t, other.realm),
    };
    await org.t.db.user.updateMany({
      where: { id: { in: [org.owner.user.id, other.owner.user.id] } },
      data: { canChangeUserEmails: true },
    });
    const asked = {
      user: [
        Permission.UserRead,
        Permission.UserAdminister,
        Permission.UserDeactivate,
        Permission.UserChangeRole,
        Permission.UserChangeEmail,
      ],
      bot: [Permission.BotAdminister],
      group: [Permission.UserGroupManage, Permission.UserGroupAddMembers, Permission.UserGroupJoin],
    } as const;
    try {
      for (const kind of ['user', 'bot', 'group'] as const) {
        for (const permission of asked[kind]) {
          const ids = [ours[kind], theirs[kind]];
          const here = await checkAccess(org.t.db, { auth: org.owner, permission, ids });
          const there = await checkAccess(org.t.db, { auth: other.owner, permission, ids });
          expect([permission, here]).toEqual([permission, new Set([ours[kind]])]);
          expect([permission, there]).toEqual([permission, new Set([theirs[kind]])]);
        }
      }
    } finally {
      await org.t.db.user.updateMany({
        where: { id: { in: [org.owner.user.id, other.owner.user.id] } },
        data: { canChangeUserEmails: false },
      });
    }
  });
});

describe('email visibility', () => {
  it('shows delivery_email by the target’s email_address_visibility, and always to oneself', async () => {
    const { alice } = org.users;
    const seen = (visibility: number) =>
      allowed((who) =>
        canSeeDeliveryEmail(who.user, { id: alice.user.id, emailAddressVisibility: visibility }),
      );
    expect(await seen(EmailVisibility.EVERYONE)).toHaveLength(6);
    expect(await seen(EmailVisibility.MEMBERS)).toEqual([
      'owner',
      'admin',
      'moderator',
      'alice',
      'bob',
    ]);
    expect(await seen(EmailVisibility.MODERATORS)).toEqual([
      'owner',
      'admin',
      'moderator',
      'alice',
    ]);
    expect(await seen(EmailVisibility.ADMINS)).toEqual(['owner', 'admin', 'alice']);
    expect(await seen(EmailVisibility.NOBODY)).toEqual(['alice']);
  });
});

describe('invitations and custom emoji', () => {
  it('follow their organization groups and are never open to guests', async () => {
    const groups = org.systemGroups;
    const everyone = groups['role:everyone'];
    expect(
      await allowed((who) =>
        canInviteByEmail(org.t.db, who.user, { canInviteUsersGroupId: everyone }),
      ),
    ).toEqual(['owner', 'admin', 'moderator', 'alice', 'bob']);
    expect(
      await allowed((who) =>
        canInviteByEmail(org.t.db, who.user, { canInviteUsersGroupId: groups['role:nobody'] }),
      ),
    ).toEqual(['owner', 'admin']);
    expect(
      await allowed((who) =>
        canCreateMultiuseInvite(org.t.db, who.user, { createMultiuseInviteGroupId: null }),
      ),
    ).toEqual(['owner', 'admin']);
    expect(
      await allowed((who) =>
        canCreateMultiuseInvite(org.t.db, who.user, {
          createMultiuseInviteGroupId: groups['role:moderators'],
        }),
      ),
    ).toEqual(['owner', 'admin', 'moderator']);
    expect(
      await allowed((who) =>
        canAddCustomEmoji(org.t.db, who.user, { canAddCustomEmojiGroupId: everyone }),
      ),
    ).toEqual(['owner', 'admin', 'moderator', 'alice', 'bob']);
  });
});

describe('channels', () => {
  it('are created by the group of their kind', async () => {
    const groups = org.systemGroups;
    const realm = {
      canCreatePublicChannelGroupId: groups['role:members'],
      canCreatePrivateChannelGroupId: groups['role:moderators'],
      canCreateWebPublicChannelGroupId: null,
    };
    const create = (kind: 'public' | 'private' | 'web-public') => (who: TestUser) =>
      canCreateChannel(org.t.db, who.user, realm, kind);
    expect(await allowed(create('public'))).toEqual([
      'owner',
      'admin',
      'moderator',
      'alice',
      'bob',
    ]);
    expect(await allowed(create('private'))).toEqual(['owner', 'admin', 'moderator']);
    expect(await allowed(create('web-public'))).toEqual([]);
  });

  it('take subscribers from administrators and can_add_subscribers_group members', async () => {
    const groups = org.systemGroups;
    const add = (id: number | null) => (who: TestUser) =>
      canAddSubscribersInRealm(org.t.db, who.user, { canAddSubscribersGroupId: id });
    expect(await allowed(add(groups['role:members']))).toEqual([
      'owner',
      'admin',
      'moderator',
      'alice',
      'bob',
    ]);
    expect(await allowed(add(null))).toEqual(['owner', 'admin']);
  });

  it('are web-public only with the server setting and spectator access', () => {
    for (const [server, spectators, expected] of [
      [true, true, true],
      [true, false, false],
      [false, true, false],
    ] as const) {
      expect(
        webPublicChannelsEnabled(
          { webPublicStreamsEnabled: server },
          { enableSpectatorAccess: spectators },
        ),
      ).toBe(expected);
    }
  });
});

describe('uploaded files', () => {
  async function attach(messageId: number, owner: TestUser) {
    const attachment = await org.t.db.attachment.create({
      data: {
        realmId: org.realm.id,
        ownerId: owner.user.id,
        pathId: `${org.realm.id}/${messageId}/${Math.random().toString(36).slice(2)}/f.txt`,
        fileName: 'f.txt',
        size: 1,
      },
    });
    await org.t.db.attachmentMessage.create({ data: { attachmentId: attachment.id, messageId } });
    return attachment;
  }

  it('are readable by their uploader and by those who may read a message linking them', async () => {
    const { alice, bob, guest } = org.users;
    const { lobby, vault } = org.channels;
    const readers = async (attachment: Awaited<ReturnType<typeof attach>>) =>
      allowed((who) => canAccessAttachment(org.t.db, who.user, attachment));

    const inLobby = await attach(
      await postToChannel(org.t, org.realm, alice.user, lobby, 't', 'x'),
      alice,
    );
    expect(await readers(inLobby)).toEqual(['owner', 'admin', 'moderator', 'alice', 'bob']);

    const inVault = await attach(
      await postToChannel(org.t, org.realm, alice.user, vault, 't', 'x'),
      alice,
    );
    expect(await readers(inVault)).toEqual(['alice']);

    const direct = await attach(
      await postDirect(org.t, org.realm, alice.user, [guest.user], 'x'),
      bob,
    );
    // Bob uploaded it; Alice and the guest received the message.
    expect(await readers(direct)).toEqual(['alice', 'bob', 'guest']);
  });
});
