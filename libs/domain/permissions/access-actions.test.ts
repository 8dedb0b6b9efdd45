import { randomBytes } from 'node:crypto';
import type { Stream } from '../../../generated/prisma/client';
import { makeChannel } from '../../../test/channel-factories';
import { makeRealm, makeUserGroup, type TestRealm } from '../../../test/factories';
import { organization, type Organization } from '../../../test/organization';
import {
  checkAccess,
  Permission,
  requireAccess,
  type RowPermission,
  type UserPermission,
} from './access';

/*
 * The permissions of the actions beside reading and editing messages: sending, subscribing,
 * typing, drafts and invitations, each answered as a set and refused with Zulip's words.
 */
let org: Organization<'admin' | 'alice' | 'bob' | 'guest', 'lobby' | 'vault' | 'announce'>;
let other: TestRealm;
let foreign: Stream;

beforeAll(async () => {
  org = await organization({
    members: { admin: 'administrator', alice: 'member', bob: 'member', guest: 'guest' },
    channels: {
      lobby: ['alice'],
      vault: { subscribers: ['alice'], inviteOnly: true },
      announce: { subscribers: ['alice'], canSend: 'role:administrators' },
    },
  });
  other = await makeRealm(org.t);
  foreign = await makeChannel(org.t, other.realm, { subscribers: [other.owner.user] });
});
afterAll(() => org.close());

const allowed = (who: keyof typeof org.users, permission: UserPermission, ids: number[]) =>
  checkAccess(org.t.db, { auth: { user: org.users[who].user }, permission, ids });

const messageOf = (done: Promise<void>) =>
  done.then(
    () => null,
    (err: Error) => err.message,
  );

const refusal = (who: keyof typeof org.users, permission: UserPermission, id: number) =>
  messageOf(
    requireAccess(org.t.db, { auth: { user: org.users[who].user }, permission, ids: [id] }),
  );

/** The permissions judged on rows, asked without handing them over. */
const rowAllowed = (who: keyof typeof org.users, permission: RowPermission, ids: number[]) =>
  checkAccess(org.t.db, { auth: { user: org.users[who].user }, permission, ids });

const rowRefusal = (who: keyof typeof org.users, permission: RowPermission, id: number) =>
  messageOf(
    requireAccess(org.t.db, { auth: { user: org.users[who].user }, permission, ids: [id] }),
  );

describe('Permission.ChannelSend and ChannelNotice', () => {
  const send = (who: keyof typeof org.users, channel: Stream, known: boolean) =>
    requireAccess(org.t.db, {
      auth: { user: org.users[who].user },
      permission: Permission.ChannelSend,
      ids: [channel.id],
      channels: known ? [channel] : undefined,
    }).then(
      () => null,
      (err: Error) => err.message,
    );

  it('refuses with the reason of each channel, read or handed over', async () => {
    const { lobby, vault, announce } = org.channels;
    for (const known of [false, true]) {
      expect(await send('bob', lobby, known)).toBeNull();
      expect(await send('bob', vault, known)).toBe("Not authorized to send to channel 'vault'");
      expect(await send('alice', vault, known)).toBeNull();
      expect(await send('alice', announce, known)).toBe(
        'You do not have permission to post in this channel.',
      );
      expect(await send('admin', announce, known)).toBeNull();
      // Another organization's channel is refused like a missing one, even handed over.
      expect(await send('alice', foreign, known)).toBe('Invalid channel ID');
    }
  });

  it("lets the server's notices into any channel that is not archived", async () => {
    const archived = await makeChannel(org.t, org.realm, { name: 'old', inviteOnly: true });
    await org.t.db.stream.update({ where: { id: archived.id }, data: { isArchived: true } });
    const notice = (channel: Stream) =>
      checkAccess(org.t.db, {
        auth: { user: org.users.bob.user },
        permission: Permission.ChannelNotice,
        ids: [channel.id],
      });
    expect(await notice(org.channels.vault)).toEqual(new Set([org.channels.vault.id]));
    expect(await notice(archived)).toEqual(new Set());
    await expect(
      requireAccess(org.t.db, {
        auth: { user: org.users.bob.user },
        permission: Permission.ChannelNotice,
        ids: [archived.id],
      }),
    ).rejects.toMatchObject({ message: "Not authorized to send to channel 'old'" });
  });
});

describe('Permission.DirectMessageSend', () => {
  it("judges the conversation by the organization's settings", async () => {
    const { alice, bob } = org.users;
    const write = (realm: typeof org.realm, ids: number[]) =>
      checkAccess(org.t.db, {
        auth: { user: alice.user, realm },
        permission: Permission.DirectMessageSend,
        ids,
      });
    expect(await write(org.realm, [bob.user.id])).toEqual(new Set([bob.user.id]));
    const closed = {
      ...org.realm,
      directMessagePermissionGroupId: org.systemGroups['role:nobody'],
    };
    expect(await write(closed, [bob.user.id])).toEqual(new Set());
    await expect(
      requireAccess(org.t.db, {
        auth: { user: alice.user, realm: closed },
        permission: Permission.DirectMessageSend,
        ids: [bob.user.id],
      }),
    ).rejects.toMatchObject({ message: 'Direct messages are disabled in this organization.' });
    // Anyone may still write to themselves.
    expect(await write(closed, [alice.user.id])).toEqual(new Set([alice.user.id]));
    // A user of another organization is nobody to write to here.
    expect(await write(org.realm, [other.owner.user.id])).toEqual(new Set());
  });
});

describe('subscription permissions', () => {
  it('answers who may subscribe themselves, others, and unsubscribe others', async () => {
    const { lobby, vault, announce } = org.channels;
    const all = [lobby.id, vault.id, announce.id, foreign.id];
    expect(await allowed('bob', Permission.ChannelSubscribe, all)).toEqual(
      new Set([lobby.id, announce.id]),
    );
    expect(await allowed('alice', Permission.ChannelSubscribe, all)).toEqual(
      new Set([lobby.id, vault.id, announce.id]),
    );
    expect(await allowed('guest', Permission.ChannelSubscribe, all)).toEqual(new Set());
    expect(await allowed('admin', Permission.ChannelRemoveSubscribers, all)).toEqual(
      new Set([lobby.id, vault.id, announce.id]),
    );
    expect(await allowed('bob', Permission.ChannelRemoveSubscribers, all)).toEqual(new Set());
    // Administrators add subscribers to the public channels; a private one needs its content.
    expect(
      await checkAccess(org.t.db, {
        auth: { user: org.users.admin.user, realm: org.realm },
        permission: Permission.ChannelAddSubscribers,
        ids: all,
      }),
    ).toEqual(new Set([lobby.id, announce.id]));
  });

  it("answers the channels whose subscription's properties one may change", async () => {
    const { lobby, vault } = org.channels;
    expect(await allowed('alice', Permission.SubscriptionUpdate, [lobby.id, foreign.id])).toEqual(
      new Set([lobby.id]),
    );
    expect(await refusal('bob', Permission.SubscriptionUpdate, vault.id)).toBe(
      `Not subscribed to channel ID ${vault.id}`,
    );
  });
});

describe('Permission.ChannelTyping', () => {
  it('answers the channels open to one, web-public ones for guests, or subscribed', async () => {
    const { lobby, vault } = org.channels;
    const web = await makeChannel(org.t, org.realm, {});
    await org.t.db.stream.update({ where: { id: web.id }, data: { isWebPublic: true } });
    const all = [lobby.id, vault.id, web.id, foreign.id];
    expect(await allowed('bob', Permission.ChannelTyping, all)).toEqual(
      new Set([lobby.id, web.id]),
    );
    expect(await allowed('alice', Permission.ChannelTyping, all)).toEqual(
      new Set([lobby.id, vault.id, web.id]),
    );
    // Unlike a topic list, typing reaches a web-public channel a guest has not joined.
    expect(await allowed('guest', Permission.ChannelTyping, all)).toEqual(new Set([web.id]));
    expect(await allowed('guest', Permission.ChannelTopics, all)).toEqual(new Set());
    expect(await refusal('bob', Permission.ChannelTyping, vault.id)).toBe('Invalid channel ID');
  });
});

describe('draft and invitation permissions', () => {
  it("answers one's own drafts", async () => {
    const draft = await org.t.db.draft.create({
      data: { userId: org.users.alice.user.id, content: 'soon' },
    });
    expect(await allowed('alice', Permission.DraftUpdate, [draft.id])).toEqual(new Set([draft.id]));
    expect(await refusal('bob', Permission.DraftDelete, draft.id)).toBe('Draft does not exist');
  });

  it('lets the inviter and administrators manage an invitation', async () => {
    const { alice } = org.users;
    const key = () => randomBytes(12).toString('hex');
    const invitation = await org.t.db.invitation.create({
      data: {
        realmId: org.realm.id,
        email: 'newcomer@example.com',
        referredById: alice.user.id,
        confirmationKey: key(),
      },
    });
    const link = await org.t.db.multiuseInvite.create({
      data: { realmId: org.realm.id, referredById: alice.user.id, confirmationKey: key() },
    });
    for (const [permission, id] of [
      [Permission.InvitationManage, invitation.id],
      [Permission.MultiuseInviteManage, link.id],
    ] as const) {
      expect(await rowRefusal('alice', permission, id)).toBeNull();
      expect(await rowRefusal('admin', permission, id)).toBeNull();
      expect(await rowRefusal('bob', permission, id)).toBe('Must be an organization administrator');
      const stranger = { user: other.owner.user };
      expect(await checkAccess(org.t.db, { auth: stranger, permission, ids: [id] })).toEqual(
        new Set(),
      );
    }
  });
});

describe('the permissions judged on rows one may hand over', () => {
  it('lists the channels one sees unsubscribed: open ones, and every one to administrators', async () => {
    const { lobby, vault } = org.channels;
    const web = await makeChannel(org.t, org.realm, {});
    await org.t.db.stream.update({ where: { id: web.id }, data: { isWebPublic: true } });
    const all = [lobby.id, vault.id, web.id, foreign.id];
    const { ChannelListUnsubscribed } = Permission;
    expect(await rowAllowed('admin', ChannelListUnsubscribed, all)).toEqual(
      new Set([lobby.id, vault.id, web.id]),
    );
    expect(await rowAllowed('bob', ChannelListUnsubscribed, all)).toEqual(
      new Set([lobby.id, web.id]),
    );
    expect(await rowAllowed('guest', ChannelListUnsubscribed, all)).toEqual(new Set([web.id]));
    // Rows handed over answer alike, with no query; another organization's row is ignored.
    const rows = await org.t.db.stream.findMany({ where: { id: { in: all } } });
    expect(
      await checkAccess(org.t.db, {
        auth: { user: org.users.admin.user },
        permission: ChannelListUnsubscribed,
        ids: all,
        channels: rows,
      }),
    ).toEqual(new Set([lobby.id, vault.id, web.id]));
  });

  it("lets a custom emoji's author and administrators remove it", async () => {
    const emoji = await org.t.db.realmEmoji.create({
      data: { realmId: org.realm.id, name: 'wave', authorId: org.users.alice.user.id },
    });
    expect(await rowRefusal('alice', Permission.EmojiDeactivate, emoji.id)).toBeNull();
    expect(await rowRefusal('admin', Permission.EmojiDeactivate, emoji.id)).toBeNull();
    expect(await rowRefusal('bob', Permission.EmojiDeactivate, emoji.id)).toBe(
      'Must be an organization administrator or emoji author',
    );
    const request = {
      permission: Permission.EmojiDeactivate,
      ids: [emoji.id],
      emoji: [emoji],
    } as const;
    await expect(
      requireAccess(org.t.db, { ...request, auth: { user: org.users.bob.user } }),
    ).rejects.toThrow('Must be an organization administrator or emoji author');
    // The other organization's owner may not remove ours, even handed the row.
    expect(await checkAccess(org.t.db, { ...request, auth: { user: other.owner.user } })).toEqual(
      new Set(),
    );
  });
});

describe('the mentions of a new message', () => {
  it("answers only the organization's own channels and user groups", async () => {
    const everyone = org.systemGroups['role:everyone'];
    const ours = await makeUserGroup(org.t, org.realm, {
      settings: { canMentionGroupId: everyone },
    });
    const theirs = await makeUserGroup(org.t, other.realm, {
      settings: { canMentionGroupId: everyone },
    });
    const auth = { user: org.users.bob.user };
    expect(
      await checkAccess(org.t.db, {
        auth,
        permission: Permission.UserGroupMention,
        ids: [ours, theirs],
      }),
    ).toEqual(new Set([ours]));
    const realm = { canMentionManyUsersGroupId: null };
    const wildcard = {
      auth: { ...auth, realm },
      permission: Permission.ChannelWildcardMention,
    } as const;
    const { lobby } = org.channels;
    expect(await checkAccess(org.t.db, { ...wildcard, ids: [lobby.id, foreign.id] })).toEqual(
      new Set([lobby.id]),
    );
    await expect(requireAccess(org.t.db, { ...wildcard, ids: [foreign.id] })).rejects.toThrow(
      'Invalid channel ID',
    );
  });
});
