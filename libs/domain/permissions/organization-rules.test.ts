import { BotType } from '../users/roles';
import { makeBot, makeUserGroup, type TestUser } from '../../../test/factories';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { organization, type Organization } from '../../../test/organization';
import { canAccessAttachment } from './attachments';
import { canAdministerBot, canCreateBot, seesAllBots } from './bots';
import { canAddSubscribersInRealm, canCreateChannel, webPublicChannelsEnabled } from './channels';
import { canSeeDeliveryEmail, EmailVisibility } from './email-visibility';
import { canAddCustomEmoji } from './emoji';
import { canCreateMultiuseInvite, canInviteByEmail } from './invites';
import { canCreateUserGroups, requireGroupReader, userGroupAccess } from './user-groups';

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
    const group = {
      isSystemGroup: false,
      canManageGroupId: await makeUserGroup(org.t, org.realm, { members: [bob.user] }),
      canAddMembersGroupId: groups['role:nobody'],
      canJoinGroupId: joiners,
      canLeaveGroupId: groups['role:everyone'],
      canRemoveMembersGroupId: groups['role:nobody'],
    };
    const realm = { canManageAllGroupsId: groups['role:nobody'] };
    const access = (who: TestUser) => userGroupAccess(org.t.db, who.user, realm, group);
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
    expect(
      await userGroupAccess(org.t.db, org.owner.user, realm, { ...group, isSystemGroup: true }),
    ).toEqual({ manage: false, addOthers: false, join: false, leave: false, removeOthers: false });
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
    expect(await allowed((who) => canAdministerBot(who.user, bot.user))).toEqual([
      'owner',
      'admin',
      'alice',
    ]);
    expect(await allowed((who) => seesAllBots(who.user))).toEqual(['owner', 'admin']);
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
