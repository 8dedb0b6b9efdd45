import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { expectOpenApiResponse } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

/**
 * Direct-message permissions (Zulip FL 270+): `direct_message_permission_group`,
 * `direct_message_initiator_group`, and guests restricted by `can_access_all_users_group`.
 */
let t: TestContext;
let org: Organization;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let bot: TestUser;
let groupIds: Record<string, number>;

beforeAll(async () => {
  org = await organization({
    defaultChannels: false,
    members: {
      admin: { role: 'administrator', fullName: 'Ada Admin' },
      alice: 'member',
      bob: 'member',
      carol: 'member',
      guest: { role: 'guest', fullName: 'Gus Guest' },
      bot: { botOf: 'alice' },
    },
    channels: { channel: ['alice', 'guest'] },
  });
  ({ t, systemGroups: groupIds } = org);
  ({ admin, alice, bob, carol, guest, bot } = org.users);
});
afterAll(() => org.close());

const setSetting = async (name: string, value: unknown) => {
  const res = await org.as(org.owner).patch('/realm', {
    [name]: JSON.stringify({ new: value }),
  });
  expect(res.body).toEqual({ result: 'success', msg: '' });
};

const dm = (sender: TestUser, to: TestUser[], content = 'hi') =>
  org.as(sender).post('/messages', {
    type: 'direct',
    to: JSON.stringify(to.map((u) => u.user.id)),
    content,
  });

/** A refused send answers Zulip's error and writes nothing. */
const expectRefused = async (sender: TestUser, to: TestUser[], msg: string) => {
  const before = await t.db.message.count();
  const res = await dm(sender, to);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg });
  expect(await t.db.message.count()).toBe(before);
};

const expectSent = async (sender: TestUser, to: TestUser[]) => {
  const res = await dm(sender, to);
  expect(res.status).toBe(200);
  expectOpenApiResponse('/messages', 'post', res.body);
};

describe('direct_message_permission_group', () => {
  afterAll(() => setSetting('direct_message_permission_group', groupIds['role:everyone']));

  it('is an organization setting administrators change through PATCH /realm', async () => {
    const refused = await org.as(alice).patch('/realm', {
      direct_message_permission_group: JSON.stringify({ new: groupIds['role:administrators'] }),
    });
    expect(refused.body).toMatchObject({ code: 'BAD_REQUEST' });
    const internet = await org.as(org.owner).patch('/realm', {
      direct_message_permission_group: JSON.stringify({ new: groupIds['role:internet'] }),
    });
    expect(internet.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: "'direct_message_permission_group' setting cannot be set to 'role:internet' group.",
    });
    await setSetting('direct_message_permission_group', groupIds['role:administrators']);
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(realm.directMessagePermissionGroupId).toBe(groupIds['role:administrators']);
  });

  it('needs someone in the group among the sender and recipients', async () => {
    await setSetting('direct_message_permission_group', groupIds['role:administrators']);
    await expectRefused(
      alice,
      [bob],
      'This conversation does not include any users who can authorize it.',
    );
    await expectRefused(
      alice,
      [bob, carol],
      'This conversation does not include any users who can authorize it.',
    );
    // An administrator (owners are administrators too) in the conversation authorizes it.
    await expectSent(alice, [bob, admin]);
    await expectSent(alice, [org.owner]);
    await expectSent(admin, [carol]);
  });

  it('lets anyone write to themselves and to bots, and bots write to anyone', async () => {
    await setSetting('direct_message_permission_group', groupIds['role:administrators']);
    await expectSent(alice, [alice]);
    await expectSent(alice, [bot]);
    await expectSent(alice, [bot, alice]);
    await expectSent(bot, [bob]);
    await expectRefused(
      alice,
      [bot, bob],
      'This conversation does not include any users who can authorize it.',
    );
  });

  it('says direct messages are disabled when the group is nobody', async () => {
    await setSetting('direct_message_permission_group', {
      direct_members: [],
      direct_subgroups: [],
    });
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    expect(realm.directMessagePermissionGroupId).toBe(groupIds['role:nobody']);
    await expectRefused(admin, [bob], 'Direct messages are disabled in this organization.');
    await expectSent(admin, [admin]);
  });

  it('takes an anonymous group, deleted again when replaced', async () => {
    await setSetting('direct_message_permission_group', {
      direct_members: [bob.user.id],
      direct_subgroups: [groupIds['role:owners']],
    });
    const realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
    const anonymousId = realm.directMessagePermissionGroupId as number;
    expect(Object.values(groupIds)).not.toContain(anonymousId);
    await expectSent(carol, [bob]);
    await expectSent(carol, [org.owner]);
    await expectRefused(
      carol,
      [admin],
      'This conversation does not include any users who can authorize it.',
    );
    await setSetting('direct_message_permission_group', groupIds['role:members']);
    expect(await t.db.userGroup.findUnique({ where: { id: anonymousId } })).toBeNull();
  });
});

describe('direct_message_initiator_group', () => {
  beforeAll(() => setSetting('direct_message_initiator_group', groupIds['role:administrators']));
  afterAll(() => setSetting('direct_message_initiator_group', groupIds['role:everyone']));

  it('refuses a new conversation to a sender outside the group', async () => {
    const fresh = await makeUser(t, org.realm);
    const other = await makeUser(t, org.realm);
    await expectRefused(
      fresh,
      [other],
      'You do not have permission to initiate direct message conversations.',
    );
  });

  it('lets anyone continue a conversation that has messages, in either direction', async () => {
    const member = await makeUser(t, org.realm);
    await expectRefused(
      member,
      [admin],
      'You do not have permission to initiate direct message conversations.',
    );
    await expectSent(admin, [member]);
    await expectSent(member, [admin]);
    // A group conversation is a new conversation of its own.
    await expectRefused(
      member,
      [admin, bob],
      'You do not have permission to initiate direct message conversations.',
    );
    await expectSent(admin, [member, bob]);
    await expectSent(member, [bob, admin]);
  });

  it('does not restrict messages to oneself or to bots', async () => {
    const member = await makeUser(t, org.realm);
    await expectSent(member, [member]);
    await expectSent(member, [bot]);
  });
});

describe('guests restricted by can_access_all_users_group', () => {
  beforeAll(() => setSetting('can_access_all_users_group', groupIds['role:members']));
  afterAll(() => setSetting('can_access_all_users_group', groupIds['role:everyone']));

  it('refuses a direct message to someone the guest cannot access', async () => {
    await expectRefused(
      guest,
      [bob],
      'You do not have permission to access some of the recipients.',
    );
    await expectRefused(
      guest,
      [alice, bob],
      'You do not have permission to access some of the recipients.',
    );
  });

  it('allows users the guest shares a channel with, bots and themselves', async () => {
    await expectSent(guest, [alice]);
    await expectSent(guest, [bot]);
    await expectSent(guest, [guest]);
  });

  it('applies only while access is restricted', async () => {
    await setSetting('can_access_all_users_group', groupIds['role:everyone']);
    await expectSent(guest, [bob]);
    await setSetting('can_access_all_users_group', groupIds['role:members']);
    // Now they share a conversation, so the guest can access Bob.
    await expectSent(guest, [bob]);
    await expectRefused(
      guest,
      [carol],
      'You do not have permission to access some of the recipients.',
    );
  });
});
