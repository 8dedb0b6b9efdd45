import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Stream, User } from '../../../generated/prisma/client';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postToChannel } from '../../../test/message-factories';
import { eventsAfter, outboxMark } from '../../../test/outbox';
import { deleteUnclaimedAttachments } from './delete-unclaimed';
import { archiveExpiredMessages } from '../retention/archive-expired-messages';
import { purgeArchivedMessages } from '../retention/purge-archived-messages';
import { LocalUploadStore } from '../../storage/local-store';
import { attachmentKey, spoolDir } from './storage';
import { uploadFile } from './upload-file';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let channel: Stream;
const uploads = mkdtempSync(path.join(tmpdir(), 'unclaimed-test-'));
const DAY_MS = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  org = await organization({
    env: { UPLOADS_DIR: uploads },
    members: { alice: { fullName: 'Alice Unclaimed' }, bob: { fullName: 'Bob Unclaimed' } },
    channels: { channel: ['alice', 'bob'] },
  });
  ({ t } = org);
  ({ alice, bob } = org.users);
  ({ channel } = org.channels);
});
afterAll(async () => {
  await org.close();
  rmSync(uploads, { recursive: true, force: true });
});

let spooled = 0;
/** Uploads a file through the real action, then makes it `ageDays` old; returns its row. */
async function upload(owner: User, ageDays: number, body = 'some bytes') {
  mkdirSync(spoolDir(t.config), { recursive: true });
  const spoolPath = path.join(spoolDir(t.config), `spool-${++spooled}`);
  writeFileSync(spoolPath, body);
  const { url } = await uploadFile(t, {
    actor: owner,
    realm: org.realm,
    files: [
      {
        fieldName: 'file',
        originalName: `file-${spooled}.txt`,
        contentType: 'text/plain',
        size: Buffer.byteLength(body),
        spoolPath,
      },
    ],
  });
  return t.db.attachment.update({
    where: { pathId: url.slice('/user_uploads/'.length) },
    data: { createTime: new Date(Date.now() - ageDays * DAY_MS) },
  });
}

const storedFilePath = (pathId: string) =>
  new LocalUploadStore(uploads).pathOf(attachmentKey(pathId));
const onDisk = (pathId: string) => existsSync(storedFilePath(pathId));

describe('deleteUnclaimedAttachments', () => {
  it('deletes an old unclaimed upload and its file, telling its owner; keeps the rest', async () => {
    const unclaimed = await upload(alice.user, 30, 'unclaimed bytes');
    const claimed = await upload(alice.user, 30, 'claimed');
    await postToChannel(
      t,
      org.realm,
      alice.user,
      channel,
      'files',
      `[claimed](/user_uploads/${claimed.pathId})`,
    );
    const recent = await upload(alice.user, 20, 'recent');
    const scheduledOnly = await upload(bob.user, 30, 'scheduled');
    const scheduled = await t.db.scheduledMessage.create({
      data: {
        realmId: org.realm.id,
        senderId: bob.user.id,
        recipientId: channel.recipientId as number,
        subject: 'later',
        content: `[f](/user_uploads/${scheduledOnly.pathId})`,
        renderedContent: '<p>later</p>',
        scheduledTimestamp: new Date(Date.now() + DAY_MS),
        hasAttachment: true,
      },
    });
    await t.db.attachmentScheduledMessage.create({
      data: { attachmentId: scheduledOnly.id, scheduledMessageId: scheduled.id },
    });
    expect(await t.db.attachmentMessage.count({ where: { attachmentId: claimed.id } })).toBe(1);
    expect(onDisk(unclaimed.pathId)).toBe(true);

    const mark = await outboxMark(t);
    expect(await deleteUnclaimedAttachments(t, { olderThanDays: 21 })).toBe(1);

    expect(await t.db.attachment.findUnique({ where: { id: unclaimed.id } })).toBeNull();
    expect(onDisk(unclaimed.pathId)).toBe(false);
    // The file's own directory goes with it.
    expect(existsSync(path.dirname(storedFilePath(unclaimed.pathId)))).toBe(false);
    for (const kept of [claimed, recent, scheduledOnly]) {
      expect(await t.db.attachment.findUnique({ where: { id: kept.id } })).not.toBeNull();
      expect(onDisk(kept.pathId)).toBe(true);
    }
    const remaining = claimed.size + recent.size + scheduledOnly.size;
    expect(await eventsAfter(t, mark)).toEqual([
      {
        event: {
          type: 'attachment',
          op: 'remove',
          attachment: { id: unclaimed.id },
          upload_space_used: remaining,
        },
        users: [alice.user.id],
      },
    ]);

    // Nothing left to do: a second run deletes nothing and says nothing.
    const again = await outboxMark(t);
    expect(await deleteUnclaimedAttachments(t, { olderThanDays: 21 })).toBe(0);
    expect(await eventsAfter(t, again)).toEqual([]);
  });

  it('works through a backlog in batches, one event per file to its owner', async () => {
    const old = [
      await upload(alice.user, 40),
      await upload(bob.user, 40),
      await upload(bob.user, 40),
    ];
    const mark = await outboxMark(t);
    expect(await deleteUnclaimedAttachments(t, { olderThanDays: 21, batchSize: 2 })).toBe(3);
    expect(await t.db.attachment.count({ where: { id: { in: old.map((a) => a.id) } } })).toBe(0);
    for (const a of old) expect(onDisk(a.pathId)).toBe(false);
    const events = await eventsAfter(t, mark);
    expect(events.map((e) => [e.users, (e.event.attachment as { id: number }).id])).toEqual(
      old.map((a) => [[a.ownerId], a.id]),
    );
  });

  it('honours the retention period it is given', async () => {
    // Earlier tests' kept uploads may go too: only this file's fate is checked.
    const tenDays = await upload(alice.user, 10);
    await deleteUnclaimedAttachments(t, { olderThanDays: 11 });
    expect(await t.db.attachment.findUnique({ where: { id: tenDays.id } })).not.toBeNull();
    expect(await deleteUnclaimedAttachments(t, { olderThanDays: 9 })).toBeGreaterThanOrEqual(1);
    expect(await t.db.attachment.findUnique({ where: { id: tenDays.id } })).toBeNull();
    expect(onDisk(tenDays.pathId)).toBe(false);
  });

  it('keeps an upload an archived message links until the archive is purged', async () => {
    const file = await upload(alice.user, 60, 'archived bytes');
    const messageId = await postToChannel(
      t,
      org.realm,
      alice.user,
      channel,
      'archived',
      `[file](/user_uploads/${file.pathId})`,
    );
    await t.db.message.update({
      where: { id: messageId },
      data: { dateSent: new Date(Date.now() - 40 * DAY_MS) },
    });
    await t.db.realm.update({ where: { id: org.realm.id }, data: { messageRetentionDays: 30 } });
    expect(await archiveExpiredMessages(t)).toBe(1);
    expect(await t.db.attachmentMessage.count({ where: { attachmentId: file.id } })).toBe(0);

    await deleteUnclaimedAttachments(t, { olderThanDays: 21 });
    expect(onDisk(file.pathId)).toBe(true);

    await purgeArchivedMessages(t, { olderThanDays: 0, now: new Date(Date.now() + 1000) });
    await deleteUnclaimedAttachments(t, { olderThanDays: 21 });
    expect(await t.db.attachment.findUnique({ where: { id: file.id } })).toBeNull();
    expect(onDisk(file.pathId)).toBe(false);
  });
});
