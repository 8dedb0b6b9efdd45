import type { User } from '../../../generated/prisma/client';
import { makeChannel } from '../../../test/channel-factories';
import { makeBot, makeUser, makeUserGroup } from '../../../test/factories';
import { postDirect } from '../../../test/message-factories';
import { organization, type Organization } from '../../../test/organization';
import {
  channelSendRefusal,
  contentEditRefusal,
  deleteRefusal,
  directMessageRefusal,
  moveRefusal,
} from './messages';
import { Permission, requireAccess } from './access';
import { WILDCARD_MENTION_THRESHOLD } from './mention-access';

let org: Organization<
  'moderator' | 'alice' | 'bob' | 'guest',
  'lobby' | 'club' | 'vault' | 'readonly'
>;

beforeAll(async () => {
  org = await organization({
    members: { moderator: 'moderator', alice: 'member', bob: 'member', guest: 'guest' },
    channels: {
      lobby: ['alice'],
      // Private with shared history, and private without.
      club: { subscribers: ['alice', 'guest'], inviteOnly: true, historyPublicToSubscribers: true },
      vault: { subscribers: ['alice'], inviteOnly: true, historyPublicToSubscribers: false },
      readonly: { subscribers: ['alice'], canSend: 'role:administrators' },
    },
  });
});
afterAll(() => org.close());

const SECOND = 1000;
const now = new Date('2026-01-01T12:00:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * SECOND);

describe('sending to channels', () => {
  it('refuses sends outside can_send_message_group and to private channels of others', async () => {
    const { alice, bob } = org.users;
    const { vault, readonly } = org.channels;
    const db = org.t.db;
    expect(await channelSendRefusal(db, alice.user, readonly)).toBe(
      'You do not have permission to post in this channel.',
    );
    expect(await channelSendRefusal(db, org.owner.user, readonly)).toBeNull();
    expect(await channelSendRefusal(db, bob.user, vault)).toBe(
      `Not authorized to send to channel '${vault.name}'`,
    );
    expect(await channelSendRefusal(db, alice.user, vault)).toBeNull();
  });
});

describe('editing, moving and deleting', () => {
  const realm = { allowMessageEditing: true, messageContentEditLimitSeconds: 600 };

  it('lets only the sender edit content, within the limit and a 20 s grace', () => {
    const { alice, bob } = org.users;
    const sent = (seconds: number) => ({ senderId: alice.user.id, dateSent: ago(seconds) });
    expect(contentEditRefusal({ realm, editor: alice.user, message: sent(619), now })).toBeNull();
    expect(contentEditRefusal({ realm, editor: alice.user, message: sent(621), now })).toBe(
      'The time limit for editing this message has passed',
    );
    expect(contentEditRefusal({ realm, editor: bob.user, message: sent(1), now })).toBe(
      "You don't have permission to edit this message",
    );
    expect(
      contentEditRefusal({
        realm: { ...realm, allowMessageEditing: false },
        editor: alice.user,
        message: sent(1),
        now,
      }),
    ).toBe('Your organization has turned off message editing');
    expect(
      contentEditRefusal({
        realm: { ...realm, messageContentEditLimitSeconds: null },
        editor: alice.user,
        message: sent(10 ** 6),
        now,
      }),
    ).toBeNull();
  });

  it('moves within the move groups; moderators are not bound by the time limits', async () => {
    const { moderator, alice, guest } = org.users;
    const groups = org.systemGroups;
    const moves = {
      canMoveMessagesBetweenTopicsGroupId: groups['role:members'],
      canMoveMessagesBetweenChannelsGroupId: groups['role:moderators'],
      moveMessagesWithinStreamLimitSeconds: 60,
      moveMessagesBetweenStreamsLimitSeconds: 60,
    };
    const old = { dateSent: ago(3600) };
    const fresh = { dateSent: ago(1) };
    const db = org.t.db;
    expect(
      await moveRefusal(db, {
        realm: moves,
        mover: alice.user,
        message: fresh,
        kind: 'topic',
        now,
      }),
    ).toBeNull();
    expect(
      await moveRefusal(db, { realm: moves, mover: alice.user, message: old, kind: 'topic', now }),
    ).toBe("The time limit for editing this message's topic has passed.");
    expect(
      await moveRefusal(db, {
        realm: moves,
        mover: moderator.user,
        message: old,
        kind: 'topic',
        now,
      }),
    ).toBeNull();
    expect(
      await moveRefusal(db, {
        realm: moves,
        mover: guest.user,
        message: fresh,
        kind: 'topic',
        now,
      }),
    ).toBe("You don't have permission to edit this message");
    expect(
      await moveRefusal(db, {
        realm: moves,
        mover: alice.user,
        message: fresh,
        kind: 'channel',
        now,
      }),
    ).toBe("You don't have permission to move this message");
    expect(
      await moveRefusal(db, {
        realm: moves,
        mover: moderator.user,
        message: old,
        kind: 'channel',
        now,
      }),
    ).toBeNull();
  });

  it('deletes any message in can_delete_any, only own ones within the limit otherwise', async () => {
    const { alice, bob } = org.users;
    const groups = org.systemGroups;
    const deletion = {
      canDeleteAnyMessageGroupId: groups['role:administrators'],
      canDeleteOwnMessageGroupId: groups['role:members'],
      messageContentDeleteLimitSeconds: 600,
    };
    const byAlice = (seconds: number) => ({ senderId: alice.user.id, dateSent: ago(seconds) });
    const db = org.t.db;
    expect(
      await deleteRefusal(db, { realm: deletion, user: alice.user, message: byAlice(599), now }),
    ).toBeNull();
    expect(
      await deleteRefusal(db, { realm: deletion, user: alice.user, message: byAlice(601), now }),
    ).toBe('The time limit for deleting this message has passed');
    expect(
      await deleteRefusal(db, { realm: deletion, user: bob.user, message: byAlice(1), now }),
    ).toBe("You don't have permission to delete this message");
    expect(
      await deleteRefusal(db, {
        realm: deletion,
        user: org.owner.user,
        message: byAlice(10 ** 6),
        now,
      }),
    ).toBeNull();
    const ownNobody = { ...deletion, canDeleteOwnMessageGroupId: groups['role:nobody'] };
    expect(
      await deleteRefusal(db, { realm: ownNobody, user: alice.user, message: byAlice(1), now }),
    ).toBe("You don't have permission to delete this message");
  });
});

describe('mentions', () => {
  const refusal = (done: Promise<void>) =>
    done.then(
      () => null,
      (err: Error) => err.message,
    );

  it("follows each group's can_mention_group", async () => {
    const { alice, bob } = org.users;
    const open = await makeUserGroup(org.t, org.realm, {
      name: 'open-mentions',
      settings: { canMentionGroupId: org.systemGroups['role:everyone'] },
    });
    const closed = await makeUserGroup(org.t, org.realm, {
      name: 'alice-mentions',
      settings: {
        canMentionGroupId: await makeUserGroup(org.t, org.realm, { members: [alice.user] }),
      },
    });
    const mention = (user: User, ids: number[]) =>
      refusal(
        requireAccess(org.t.db, { auth: { user }, permission: Permission.UserGroupMention, ids }),
      );
    expect(await mention(bob.user, [open])).toBeNull();
    expect(await mention(alice.user, [open, closed])).toBeNull();
    expect(await mention(bob.user, [open, closed])).toBe(
      "You are not allowed to mention user group 'alice-mentions'.",
    );
  });

  it("needs the organization's can_mention_many_users_group in a big channel", async () => {
    const { bob } = org.users;
    const realm = { canMentionManyUsersGroupId: org.systemGroups['role:administrators'] };
    const users = [];
    for (let i = 0; i < WILDCARD_MENTION_THRESHOLD; i++) {
      users.push((await makeUser(org.t, org.realm)).user);
    }
    const channel = await makeChannel(org.t, org.realm, { subscribers: users });
    const wildcard = (user: User) =>
      refusal(
        requireAccess(org.t.db, {
          auth: { user, realm },
          permission: Permission.ChannelWildcardMention,
          ids: [channel.id],
        }),
      );
    expect(await wildcard(bob.user)).toBeNull();
    await org.t.db.subscription.create({
      data: { userId: bob.user.id, recipientId: channel.recipientId! },
    });
    expect(await wildcard(bob.user)).toBe(
      'You do not have permission to use channel wildcard mentions in this channel.',
    );
    expect(await wildcard(org.owner.user)).toBeNull();
  });
});

describe('direct messages', () => {
  const target = (u: { user: { id: number; isBot: boolean } }) => ({
    id: u.user.id,
    isBot: u.user.isBot,
  });

  it('are open to everyone when both groups are role:everyone', async () => {
    const { alice, bob } = org.users;
    const groups = org.systemGroups;
    const realm = {
      directMessagePermissionGroupId: groups['role:everyone'],
      directMessageInitiatorGroupId: groups['role:everyone'],
    };
    expect(await directMessageRefusal(org.t.db, realm, alice.user, [target(bob)])).toBeNull();
  });

  it('need someone of the permission group in the conversation', async () => {
    const { alice, bob } = org.users;
    const groups = org.systemGroups;
    const realm = {
      directMessagePermissionGroupId: groups['role:administrators'],
      directMessageInitiatorGroupId: groups['role:everyone'],
    };
    const db = org.t.db;
    expect(await directMessageRefusal(db, realm, alice.user, [target(bob)])).toBe(
      'This conversation does not include any users who can authorize it.',
    );
    expect(
      await directMessageRefusal(db, realm, alice.user, [target(bob), target(org.owner)]),
    ).toBeNull();
    // To oneself, and to bots, always.
    expect(await directMessageRefusal(db, realm, alice.user, [target(alice)])).toBeNull();
    const bot = await makeBot(org.t, org.realm, bob.user);
    expect(await directMessageRefusal(db, realm, alice.user, [target(bot)])).toBeNull();
    const nobody = { ...realm, directMessagePermissionGroupId: groups['role:nobody'] };
    expect(await directMessageRefusal(db, nobody, alice.user, [target(bob)])).toBe(
      'Direct messages are disabled in this organization.',
    );
  });

  it('let those outside the initiator group only answer in existing conversations', async () => {
    const { alice, bob, moderator } = org.users;
    const groups = org.systemGroups;
    const realm = {
      directMessagePermissionGroupId: groups['role:everyone'],
      directMessageInitiatorGroupId: groups['role:moderators'],
    };
    const db = org.t.db;
    expect(await directMessageRefusal(db, realm, bob.user, [target(moderator)])).toBe(
      'You do not have permission to initiate direct message conversations.',
    );
    await postDirect(org.t, org.realm, moderator.user, [bob.user], 'hello Bob');
    expect(await directMessageRefusal(db, realm, bob.user, [target(moderator)])).toBeNull();
    expect(await directMessageRefusal(db, realm, moderator.user, [target(alice)])).toBeNull();
  });
});
