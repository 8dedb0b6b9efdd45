import type { Stream } from '../../../generated/prisma/client';
import { makeChannel } from '../../../test/channel-factories';
import { makeRealm, makeUser, type TestRealm } from '../../../test/factories';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { organization, type Organization } from '../../../test/organization';
import { checkAccess, Permission, requireAccess, type UserPermission } from './access';

let org: Organization<'admin' | 'alice' | 'bob' | 'guest', 'lobby' | 'club' | 'vault'>;
let other: TestRealm;
let foreign: Stream;
let ids: {
  lobby: number;
  club: number;
  vault: number;
  dmAliceBob: number;
  foreign: number;
};

beforeAll(async () => {
  org = await organization({
    members: { admin: 'administrator', alice: 'member', bob: 'member', guest: 'guest' },
    channels: {
      lobby: ['alice'],
      club: { subscribers: ['alice', 'guest'], inviteOnly: true, historyPublicToSubscribers: true },
      vault: { subscribers: ['alice'], inviteOnly: true, historyPublicToSubscribers: false },
    },
  });
  other = await makeRealm(org.t);
  foreign = await makeChannel(org.t, other.realm, { subscribers: [other.owner.user] });
  const { alice, bob } = org.users;
  const post = (stream: Stream) => postToChannel(org.t, org.realm, alice.user, stream, 't', 'hi');
  ids = {
    lobby: await post(org.channels.lobby),
    club: await post(org.channels.club),
    vault: await post(org.channels.vault),
    dmAliceBob: await postDirect(org.t, org.realm, alice.user, [bob.user], 'hello'),
    foreign: await postToChannel(org.t, other.realm, other.owner.user, foreign, 't', 'far'),
  };
});
afterAll(() => org.close());

const allowed = (who: keyof typeof org.users, permission: UserPermission, of: number[]) =>
  checkAccess(org.t.db, { auth: { user: org.users[who].user }, permission, ids: of });

describe('Permission.MessageRead', () => {
  it('answers the received messages and those of channels whose history one may read', async () => {
    const all = [ids.lobby, ids.club, ids.vault, ids.dmAliceBob, ids.foreign];
    expect(await allowed('alice', Permission.MessageRead, all)).toEqual(
      new Set([ids.lobby, ids.club, ids.vault, ids.dmAliceBob]),
    );
    // Bob received only the direct message; the public channel's history is his to read.
    expect(await allowed('bob', Permission.MessageRead, all)).toEqual(
      new Set([ids.lobby, ids.dmAliceBob]),
    );
    // The guest was subscribed to the club when it was sent; lobby is public, not web-public.
    expect(await allowed('guest', Permission.MessageRead, all)).toEqual(new Set([ids.club]));
    // The owner of another organization reads nothing here, and ours reads nothing there.
    expect(
      await checkAccess(org.t.db, {
        auth: { user: other.owner.user },
        permission: Permission.MessageRead,
        ids: all,
      }),
    ).toEqual(new Set([ids.foreign]));
  });

  it('throws "Invalid message(s)" when any message is refused', async () => {
    const request = {
      auth: { user: org.users.bob.user },
      permission: Permission.MessageRead,
    } as const;
    await expect(
      requireAccess(org.t.db, { ...request, ids: [ids.lobby, ids.dmAliceBob] }),
    ).resolves.toBeUndefined();
    await expect(
      requireAccess(org.t.db, { ...request, ids: [ids.lobby, ids.foreign] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid message(s)' });
  });
});

describe('channel permissions', () => {
  const channels = () => [
    org.channels.lobby.id,
    org.channels.club.id,
    org.channels.vault.id,
    foreign.id,
  ];

  it('answers the channels whose history and topics one may read', async () => {
    const { lobby, club } = org.channels;
    expect(await allowed('bob', Permission.ChannelHistory, channels())).toEqual(
      new Set([lobby.id]),
    );
    // Alice is subscribed to the vault, but its history before her subscription is protected.
    expect(await allowed('alice', Permission.ChannelHistory, channels())).toEqual(
      new Set([lobby.id, club.id]),
    );
    expect(await allowed('alice', Permission.ChannelTopics, channels())).toEqual(
      new Set([lobby.id, club.id, org.channels.vault.id]),
    );
    expect(await allowed('guest', Permission.ChannelHistory, channels())).toEqual(
      new Set([club.id]),
    );
    expect(await allowed('guest', Permission.ChannelTopics, channels())).toEqual(
      new Set([club.id]),
    );
    // Administrators see private channels' settings, not their topics, unless subscribed.
    expect(await allowed('admin', Permission.ChannelTopics, channels())).toEqual(
      new Set([lobby.id]),
    );
  });

  it('lets administrators see and administer private channels they cannot read', async () => {
    const { lobby, club, vault } = org.channels;
    expect(await allowed('admin', Permission.ChannelRead, channels())).toEqual(new Set([lobby.id]));
    expect(await allowed('admin', Permission.ChannelMetadata, channels())).toEqual(
      new Set([lobby.id, club.id, vault.id]),
    );
    expect(await allowed('admin', Permission.ChannelAdmin, channels())).toEqual(
      new Set([lobby.id, club.id, vault.id]),
    );
    await expect(
      requireAccess(org.t.db, {
        auth: { user: org.users.bob.user },
        permission: Permission.ChannelAdmin,
        ids: [lobby.id],
      }),
    ).rejects.toMatchObject({ message: 'You do not have permission to administer this channel.' });
    // A channel one cannot see answers like a missing one.
    await expect(
      requireAccess(org.t.db, {
        auth: { user: org.users.bob.user },
        permission: Permission.ChannelAdmin,
        ids: [vault.id],
      }),
    ).rejects.toMatchObject({ message: 'Invalid channel ID' });
  });
});

describe('message actions', () => {
  it("edits and deletes by the organization's rules, with Zulip's words for each refusal", async () => {
    const realm = org.realm;
    const { alice, bob } = org.users;
    const edit = (user: typeof alice) =>
      requireAccess(org.t.db, {
        auth: { user: user.user, realm },
        permission: Permission.MessageEdit,
        ids: [ids.lobby],
      });
    await expect(edit(alice)).resolves.toBeUndefined();
    await expect(edit(bob)).rejects.toMatchObject({
      message: "You don't have permission to edit this message",
    });
    const late = new Date(Date.now() + 10 * 24 * 3600 * 1000);
    await expect(
      requireAccess(org.t.db, {
        auth: { user: alice.user, realm },
        permission: Permission.MessageEdit,
        ids: [ids.lobby],
        now: late,
      }),
    ).rejects.toMatchObject({ message: 'The time limit for editing this message has passed' });
    const deletable = await checkAccess(org.t.db, {
      auth: { user: org.owner.user, realm },
      permission: Permission.MessageDelete,
      ids: [ids.lobby, ids.foreign],
    });
    // Another organization's message is nobody's here to delete.
    expect(deletable).toEqual(new Set([ids.lobby]));
  });
});

describe('Permission.ScheduledMessageUpdate', () => {
  it("answers only the sender's own scheduled messages of their organization", async () => {
    const { alice, bob } = org.users;
    const row = await org.t.db.scheduledMessage.create({
      data: {
        realmId: org.realm.id,
        senderId: alice.user.id,
        recipientId: org.channels.lobby.recipientId!,
        subject: 't',
        content: 'later',
        renderedContent: '<p>later</p>',
        scheduledTimestamp: new Date(Date.now() + 3600 * 1000),
      },
    });
    expect(await allowed('alice', Permission.ScheduledMessageUpdate, [row.id])).toEqual(
      new Set([row.id]),
    );
    await expect(
      requireAccess(org.t.db, {
        auth: { user: bob.user },
        permission: Permission.ScheduledMessageDelete,
        ids: [row.id],
      }),
    ).rejects.toMatchObject({ message: 'Scheduled message does not exist' });
  });
});

it('answers an empty set for no IDs, and ignores a user of another organization', async () => {
  expect(await allowed('alice', Permission.ChannelRead, [])).toEqual(new Set());
  const stranger = await makeUser(org.t, other.realm);
  expect(
    await checkAccess(org.t.db, {
      auth: { user: stranger.user },
      permission: Permission.ChannelMetadata,
      ids: [org.channels.lobby.id, foreign.id],
    }),
  ).toEqual(new Set([foreign.id]));
});
