import type { Stream } from '../../../generated/prisma/client';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postToChannel } from '../../../test/message-factories';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let guest: TestUser;
let design: Stream;
let messageId: number;

beforeAll(async () => {
  org = await organization({
    members: { alice: 'member', bob: 'member', guest: 'guest' },
    channels: { design: ['alice', 'bob'] },
  });
  ({ t } = org);
  ({ alice, bob, guest } = org.users);
  ({ design } = org.channels);
  messageId = await postToChannel(t, org.realm, alice.user, design, 'r', 'react to me');
});
afterAll(() => org.close());

const react = (
  method: 'post' | 'delete',
  who: TestUser,
  form: Record<string, string>,
  id = messageId,
) => org.as(who)[method](`/messages/${id}/reactions`, form);

const reactions = () => t.db.reaction.findMany({ where: { messageId }, orderBy: { id: 'asc' } });

describe('POST /messages/{id}/reactions', () => {
  it('adds a unicode emoji by name, emits a reaction event and shows it on the message', async () => {
    const res = await react('post', bob, { emoji_name: 'octopus' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'success', msg: '' });
    const [r] = await reactions();
    expect(r).toMatchObject({
      userId: bob.user.id,
      emojiName: 'octopus',
      emojiCode: '1f419',
      reactionType: 'unicode_emoji',
    });
    const row = await t.db.outboxEvent.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(row.eventJson).toMatchObject({
      type: 'reaction',
      op: 'add',
      user_id: bob.user.id,
      message_id: messageId,
      emoji_code: '1f419',
    });
    expect((row.usersJson as number[]).sort()).toEqual([alice.user.id, bob.user.id].sort());
    const got = await org.as(alice).get(`/messages/${messageId}`);
    expect(got.body.message.reactions).toEqual([
      {
        emoji_name: 'octopus',
        emoji_code: '1f419',
        reaction_type: 'unicode_emoji',
        user_id: bob.user.id,
      },
    ]);
  });

  it('refuses a duplicate with REACTION_ALREADY_EXISTS', async () => {
    const res = await react('post', bob, { emoji_name: 'octopus' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      result: 'error',
      code: 'REACTION_ALREADY_EXISTS',
      msg: 'Reaction already exists.',
    });
    expect(await reactions()).toHaveLength(1);
  });

  it('accepts explicit code and type, realm emoji and the extra emoji (both type names)', async () => {
    const emoji = await t.db.realmEmoji.create({
      data: { realmId: org.realm.id, name: 'party_parrot', fileName: 'p.gif' },
    });
    expect(
      (
        await react('post', alice, {
          emoji_name: 'octopus',
          emoji_code: '1f419',
          reaction_type: 'unicode_emoji',
        })
      ).status,
    ).toBe(200);
    expect((await react('post', alice, { emoji_name: 'party_parrot' })).status).toBe(200);
    expect(
      (
        await react('post', alice, {
          emoji_name: 'zulip',
          emoji_code: 'zulip',
          reaction_type: 'service_extra_emoji',
        })
      ).status,
    ).toBe(200);
    const mine = (await reactions()).filter((r) => r.userId === alice.user.id);
    expect(mine.map((r) => [r.reactionType, r.emojiCode])).toEqual([
      ['unicode_emoji', '1f419'],
      ['realm_emoji', String(emoji.id)],
      ['zulip_extra_emoji', 'zulip'],
    ]);
  });

  it.each([
    [{ emoji_name: 'no_such_emoji_xyz' }, "Emoji 'no_such_emoji_xyz' does not exist"],
    [
      { emoji_name: 'octopus', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' },
      'Invalid emoji code.',
    ],
    [
      { emoji_name: 'smile', emoji_code: '1f419', reaction_type: 'unicode_emoji' },
      'Invalid emoji name.',
    ],
    [
      { emoji_name: 'x', emoji_code: '999999', reaction_type: 'realm_emoji' },
      'Invalid custom emoji.',
    ],
    [{ emoji_name: 'x', emoji_code: 'x', reaction_type: 'weird' }, 'Invalid emoji type.'],
  ])('rejects %j with BAD_REQUEST', async (form, msg) => {
    const before = (await reactions()).length;
    const res = await react('post', bob, form);
    expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg });
    expect(await reactions()).toHaveLength(before);
  });

  it('refuses messages the user cannot access (guest, not subscribed)', async () => {
    const res = await react('post', guest, { emoji_name: 'octopus' });
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' });
  });

  it('lets a non-subscribed member react to public history, adding a historical copy', async () => {
    const carol = await makeUser(t, org.realm);
    expect((await react('post', carol, { emoji_name: 'tada' })).status).toBe(200);
    const um = await t.db.userMessage.findUnique({
      where: { userId_messageId: { userId: carol.user.id, messageId } },
    });
    expect(um?.flags).toBe(129n);
  });
});

describe('DELETE /messages/{id}/reactions', () => {
  it('removes by name and by code, then reports REACTION_DOES_NOT_EXIST', async () => {
    const res = await react('delete', bob, { emoji_name: 'octopus' });
    expect(res.status).toBe(200);
    expect((await reactions()).some((r) => r.userId === bob.user.id)).toBe(false);
    const row = await t.db.outboxEvent.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(row.eventJson).toMatchObject({ type: 'reaction', op: 'remove', emoji_name: 'octopus' });
    expect(
      (
        await react('delete', alice, {
          emoji_code: 'zulip',
          reaction_type: 'zulip_extra_emoji',
        })
      ).status,
    ).toBe(200);
    const again = await react('delete', bob, { emoji_name: 'octopus' });
    expect(again.body).toEqual({
      result: 'error',
      code: 'REACTION_DOES_NOT_EXIST',
      msg: "Reaction doesn't exist.",
    });
  });
});
