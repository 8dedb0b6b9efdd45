import { makeChannel } from '../../../test/channel-factories';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { channelAccessFor } from './channels';
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
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    const adminAccess = await channelAccessFor(t.db, admin.user, chan, realm);
    expect(adminAccess).toMatchObject({
      metadata: true,
      content: false,
      administer: true,
      subscribeSelf: false,
      removeSubscribers: true,
    });
    const memberAccess = await channelAccessFor(t.db, member.user, chan, realm);
    expect(memberAccess).toMatchObject({ metadata: false, content: false, administer: false });
    const ownerAccess = await channelAccessFor(t.db, org.owner.user, chan, realm);
    expect(ownerAccess).toMatchObject({ subscribed: true, content: true });
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
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    const access = await channelAccessFor(t.db, member.user, open, realm);
    expect(access).toMatchObject({ content: true, subscribeSelf: true });
    const guestAccess = await channelAccessFor(t.db, guest.user, open, realm);
    expect(guestAccess).toMatchObject({ content: false, subscribeSelf: false });
  });
});
