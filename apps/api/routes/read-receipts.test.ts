import type { Stream } from '../../../generated/prisma/client';
import { makeBot, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let sender: TestUser;
let reader: TestUser;
let shy: TestUser;
let muter: TestUser;
let mutedByViewer: TestUser;
let gone: TestUser;
let unread: TestUser;
let guest: TestUser;
let channel: Stream;

beforeAll(async () => {
  org = await organization({
    members: {
      sender: 'member',
      reader: 'member',
      shy: 'member',
      muter: 'member',
      mutedByViewer: 'member',
      gone: 'member',
      unread: 'member',
      guest: 'guest',
    },
    channels: { channel: ['sender', 'reader', 'shy', 'muter', 'mutedByViewer', 'gone', 'unread'] },
  });
  ({ t } = org);
  ({ sender, reader, shy, muter, mutedByViewer, gone, unread, guest } = org.users);
  ({ channel } = org.channels);
  await t.db.realm.update({ where: { id: org.realm.id }, data: { enableReadReceipts: true } });
  org.realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
  await t.db.user.update({ where: { id: shy.user.id }, data: { sendReadReceipts: false } });
});
afterAll(() => org.close());

const receipts = (who: TestUser, messageId: number) =>
  org.as(who).get(`/messages/${messageId}/read_receipts`);

async function markRead(users: TestUser[], messageId: number): Promise<void> {
  for (const u of users) {
    const res = await org.as(u).post('/messages/flags', {
      messages: JSON.stringify([messageId]),
      op: 'add',
      flag: 'read',
    });
    expect(res.status).toBe(200);
  }
}

describe('GET /messages/{message_id}/read_receipts', () => {
  it('lists readers who share receipts, never the sender, hiding muting in both directions', async () => {
    const id = await postToChannel(t, org.realm, sender.user, channel, 'news', 'hello');
    const bot = await makeBot(t, org.realm, org.owner.user);
    await t.db.userMessage.create({ data: { userId: bot.user.id, messageId: id, flags: 1 } });
    await markRead([sender, reader, shy, muter, mutedByViewer, gone], id);
    await t.db.user.update({ where: { id: gone.user.id }, data: { isActive: false } });
    await t.db.mutedUser.createMany({
      data: [
        { userProfileId: muter.user.id, mutedUserId: reader.user.id },
        { userProfileId: reader.user.id, mutedUserId: mutedByViewer.user.id },
      ],
    });

    const res = await receipts(reader, id);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/{message_id}/read_receipts', 'get', res.body);
    // Bots count; the viewer sees themselves; sender, shy, inactive and unread readers do not.
    expect(res.body.user_ids).toEqual([reader.user.id, bot.user.id].sort((a, b) => a - b));

    const bySender = await receipts(sender, id);
    expect(bySender.body.user_ids).toEqual(
      [reader.user.id, muter.user.id, mutedByViewer.user.id, bot.user.id].sort((a, b) => a - b),
    );
  });

  it('works for direct messages the caller received', async () => {
    const id = await postDirect(t, org.realm, sender.user, [reader.user, unread.user], 'psst');
    await markRead([reader], id);
    expect((await receipts(unread, id)).body.user_ids).toEqual([reader.user.id]);
  });

  it('refuses messages the caller cannot read', async () => {
    const dm = await postDirect(t, org.realm, sender.user, [reader.user], 'private');
    const invalid = { result: 'error', code: 'BAD_REQUEST', msg: 'Invalid message(s)' };
    expect((await receipts(unread, dm)).body).toEqual(invalid);
    const inChannel = await postToChannel(t, org.realm, sender.user, channel, 'news', 'x');
    const res = await receipts(guest, inChannel);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalid);
    expectOpenApiResponse('/messages/{message_id}/read_receipts', 'get', res.body, {
      status: 400,
    });
    expect((await receipts(reader, 99999999)).body).toEqual(invalid);
  });

  it('is refused when the organization turned read receipts off', async () => {
    const id = await postToChannel(t, org.realm, sender.user, channel, 'news', 'x');
    await t.db.realm.update({ where: { id: org.realm.id }, data: { enableReadReceipts: false } });
    const res = await receipts(reader, id);
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Read receipts are disabled in this organization.',
    });
    await t.db.realm.update({ where: { id: org.realm.id }, data: { enableReadReceipts: true } });
  });
});
