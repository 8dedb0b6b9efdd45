import type { Stream } from '../../../generated/prisma/client';
import { Role } from '../../../libs/domain/users/roles';
import {
  makeBot,
  makeRealm,
  makeUser,
  type TestRealm,
  type TestUser,
} from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { expectOpenApiResponse } from '../../../test/openapi';
import { api } from '../../../test/requests';

let t: TestContext;
let org: TestRealm;
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
  t = await startTestContext();
  org = await makeRealm(t);
  await t.db.realm.update({ where: { id: org.realm.id }, data: { enableReadReceipts: true } });
  org.realm = await t.db.realm.findUniqueOrThrow({ where: { id: org.realm.id } });
  [sender, reader, shy, muter, mutedByViewer, gone, unread] = await Promise.all(
    Array.from({ length: 7 }, () => makeUser(t, org.realm)),
  );
  guest = await makeUser(t, org.realm, { role: Role.GUEST });
  await t.db.user.update({ where: { id: shy.user.id }, data: { sendReadReceipts: false } });
  channel = await makeChannel(t, org.realm, {
    subscribers: [sender, reader, shy, muter, mutedByViewer, gone, unread].map((u) => u.user),
  });
});
afterAll(() => t.close());

const receipts = (auth: string, messageId: number) =>
  api(t, org.host, 'get', `/messages/${messageId}/read_receipts`, auth);

async function markRead(users: TestUser[], messageId: number): Promise<void> {
  for (const u of users) {
    const res = await api(t, org.host, 'post', '/messages/flags', u.auth, {
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

    const res = await receipts(reader.auth, id);
    expect(res.status).toBe(200);
    expectOpenApiResponse('/messages/{message_id}/read_receipts', 'get', res.body);
    // Bots count; the viewer sees themselves; sender, shy, inactive and unread readers do not.
    expect(res.body.user_ids).toEqual([reader.user.id, bot.user.id].sort((a, b) => a - b));

    const bySender = await receipts(sender.auth, id);
    expect(bySender.body.user_ids).toEqual(
      [reader.user.id, muter.user.id, mutedByViewer.user.id, bot.user.id].sort((a, b) => a - b),
    );
  });

  it('works for direct messages the caller received', async () => {
    const id = await postDirect(t, org.realm, sender.user, [reader.user, unread.user], 'psst');
    await markRead([reader], id);
    expect((await receipts(unread.auth, id)).body.user_ids).toEqual([reader.user.id]);
  });

  it('refuses messages the caller cannot read', async () => {
    const dm = await postDirect(t, org.realm, sender.user, [reader.user], 'private');
    const invalid = { result: 'error', code: 'BAD_REQUEST', msg: 'Invalid message(s)' };
    expect((await receipts(unread.auth, dm)).body).toEqual(invalid);
    const inChannel = await postToChannel(t, org.realm, sender.user, channel, 'news', 'x');
    const res = await receipts(guest.auth, inChannel);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalid);
    expectOpenApiResponse('/messages/{message_id}/read_receipts', 'get', res.body, {
      status: 400,
    });
    expect((await receipts(reader.auth, 99999999)).body).toEqual(invalid);
  });

  it('is refused when the organization turned read receipts off', async () => {
    const id = await postToChannel(t, org.realm, sender.user, channel, 'news', 'x');
    await t.db.realm.update({ where: { id: org.realm.id }, data: { enableReadReceipts: false } });
    const res = await receipts(reader.auth, id);
    expect(res.body).toEqual({
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Read receipts are disabled in this organization.',
    });
    await t.db.realm.update({ where: { id: org.realm.id }, data: { enableReadReceipts: true } });
  });
});
