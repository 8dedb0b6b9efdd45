import type { Stream, User } from '../../../generated/prisma/client';
import { makeChannel } from '../../../test/channel-factories';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { checkAccessMany, Permission, type ChannelPermission } from './access';
import { channelSendRefusal } from './messages';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let member: TestUser;
let guest: TestUser;
let admin: TestUser;

beforeAll(async () => {
  org = await organization({
    members: { member: 'member', guest: 'guest', admin: 'administrator' },
  });
  ({ t } = org);
  ({ member, guest, admin } = org.users);
});
afterAll(() => org.close());

const {
  ChannelAdmin,
  ChannelMetadata,
  ChannelRead,
  ChannelRemoveSubscribers,
  ChannelSubscribe,
  ChannelSubscribers,
  SubscriptionUpdate,
} = Permission;
const ASKED: ChannelPermission[] = [
  ChannelAdmin,
  ChannelMetadata,
  ChannelRead,
  ChannelRemoveSubscribers,
  ChannelSubscribe,
  ChannelSubscribers,
  SubscriptionUpdate,
];

/** Whether `user` holds each channel permission on `chan`, from one `checkAccessMany`. */
async function access(user: User, chan: Stream): Promise<Record<string, boolean>> {
  const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
  const answer = await checkAccessMany(t.db, {
    auth: { user, realm },
    permissions: ASKED,
    ids: [chan.id],
  });
  return Object.fromEntries(ASKED.map((p) => [p, answer[p].has(chan.id)]));
}

describe('channel permissions', () => {
  it('lets members but not unsubscribed guests post to public channels', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    expect(await channelSendRefusal(t.db, member.user, chan)).toBeNull();
    expect(await channelSendRefusal(t.db, guest.user, chan)).toBe(
      `Not authorized to send to channel '${chan.name}'`,
    );
    const archived = await t.db.stream.update({
      where: { id: chan.id },
      data: { isArchived: true },
    });
    expect(await channelSendRefusal(t.db, member.user, archived)).toBe(
      `Not authorized to send to channel '${chan.name}'`,
    );
  });

  it('follows can_send_message_group', async () => {
    const chan = await makeChannel(t, org.realm, { subscribers: [org.owner.user] });
    const admins = await t.db.userGroup.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'role:administrators' },
    });
    const restricted = await t.db.stream.update({
      where: { id: chan.id },
      data: { canSendMessageGroupId: admins.id },
    });
    expect(await channelSendRefusal(t.db, member.user, restricted)).toBe(
      'You do not have permission to post in this channel.',
    );
    expect(await channelSendRefusal(t.db, admin.user, restricted)).toBeNull();
  });

  it('gives administrators metadata but not content access to private channels', async () => {
    const chan = await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      inviteOnly: true,
    });
    expect(await access(admin.user, chan)).toEqual({
      [ChannelMetadata]: true,
      [ChannelRead]: false,
      [ChannelAdmin]: true,
      [ChannelSubscribe]: false,
      [ChannelRemoveSubscribers]: true,
      [ChannelSubscribers]: true,
      [SubscriptionUpdate]: false,
    });
    expect(await access(member.user, chan)).toMatchObject({
      [ChannelMetadata]: false,
      [ChannelRead]: false,
      [ChannelAdmin]: false,
      [ChannelSubscribers]: false,
    });
    expect(await access(org.owner.user, chan)).toMatchObject({
      [SubscriptionUpdate]: true,
      [ChannelRead]: true,
      [ChannelSubscribers]: true,
    });
    expect(await channelSendRefusal(t.db, org.owner.user, chan)).toBeNull();
  });

  it('grants content access to private channels through can_subscribe_group', async () => {
    const chan = await makeChannel(t, org.realm, {
      subscribers: [org.owner.user],
      inviteOnly: true,
    });
    const members = await t.db.userGroup.findFirstOrThrow({
      where: { realmId: org.realm.id, name: 'role:members' },
    });
    const open = await t.db.stream.update({
      where: { id: chan.id },
      data: { canSubscribeGroupId: members.id },
    });
    expect(await access(member.user, open)).toMatchObject({
      [ChannelRead]: true,
      [ChannelSubscribe]: true,
      [ChannelSubscribers]: true,
    });
    expect(await access(guest.user, open)).toMatchObject({
      [ChannelRead]: false,
      [ChannelSubscribe]: false,
      [ChannelSubscribers]: false,
    });
  });
});
