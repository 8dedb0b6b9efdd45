import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { eventsAfter, ofType, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';
import { archiveExpiredMessages } from './archive-expired-messages';
import { purgeArchivedMessages } from './purge-archived-messages';

const DAY_MS = 24 * 60 * 60 * 1000;

let org: Organization<'alice' | 'bob', 'policy' | 'forever' | 'short'>;
let t: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  org = await organization({
    members: { alice: 'member', bob: 'member' },
    channels: {
      policy: ['alice', 'bob'],
      forever: ['alice', 'bob'],
      short: ['alice', 'bob'],
    },
  });
  ({ t } = org);
  await setChannelRetention('forever', -1);
  await setChannelRetention('short', 5);
  ({ alice, bob } = org.users);
});
afterAll(() => org.close());

async function setRealmRetention(days: number | null): Promise<void> {
  await t.db.realm.update({ where: { id: org.realm.id }, data: { messageRetentionDays: days } });
}

async function setChannelRetention(
  channel: 'forever' | 'short',
  days: number | null,
): Promise<void> {
  await t.db.stream.update({
    where: { id: org.channels[channel].id },
    data: { messageRetentionDays: days },
  });
}

/** Makes a message `ageDays` old. */
async function age(messageId: number, ageDays: number): Promise<void> {
  await t.db.message.update({
    where: { id: messageId },
    data: { dateSent: new Date(Date.now() - ageDays * DAY_MS) },
  });
}

async function exists(messageId: number): Promise<boolean> {
  return (await t.db.message.count({ where: { id: messageId } })) === 1;
}

describe('archiveExpiredMessages', () => {
  it('archives what each policy expired, with its copies and reactions, and tells clients', async () => {
    await setRealmRetention(30);
    const { policy, forever, short } = org.channels;
    const oldInPolicy = await postToChannel(t, org.realm, alice.user, policy, 'old', 'old one');
    const newInPolicy = await postToChannel(t, org.realm, alice.user, policy, 'new', 'new one');
    const oldForever = await postToChannel(t, org.realm, alice.user, forever, 'old', 'kept');
    const shortLived = await postToChannel(t, org.realm, bob.user, short, 'week', 'a week old');
    const oldDirect = await postDirect(t, org.realm, alice.user, [bob.user], 'old secret');
    await age(oldInPolicy, 31);
    await age(newInPolicy, 29);
    await age(oldForever, 400);
    await age(shortLived, 7);
    await age(oldDirect, 31);
    await t.db.reaction.create({
      data: {
        userId: bob.user.id,
        messageId: oldInPolicy,
        emojiName: 'tada',
        emojiCode: '1f389',
        reactionType: 'unicode_emoji',
      },
    });
    const copies = await t.db.userMessage.findMany({ where: { messageId: oldInPolicy } });
    const mark = await outboxMark(t);

    expect(await archiveExpiredMessages(t)).toBe(3);

    expect(await exists(oldInPolicy)).toBe(false);
    expect(await exists(shortLived)).toBe(false);
    expect(await exists(oldDirect)).toBe(false);
    expect(await exists(newInPolicy)).toBe(true);
    expect(await exists(oldForever)).toBe(true);

    const archived = await t.db.archivedMessage.findUnique({
      where: { id: oldInPolicy },
      include: { userMessages: true, reactions: true, archiveTransaction: true },
    });
    expect(archived).toMatchObject({ content: 'old one', subject: 'old', realmId: org.realm.id });
    expect(archived?.archiveTransaction.kind).toBe(1);
    expect(archived?.userMessages.map((um) => [um.userId, um.flags]).sort()).toEqual(
      copies.map((um) => [um.userId, um.flags]).sort(),
    );
    expect(archived?.reactions.map((r) => r.emojiName)).toEqual(['tada']);

    const deletions = ofType(await eventsAfter(t, mark), 'delete_message');
    const byIds = (id: number) =>
      deletions.find((e) => e.event.message_ids?.toString() === `${id}`);
    expect(byIds(oldInPolicy)?.event).toMatchObject({ message_type: 'stream', topic: 'old' });
    expect(byIds(oldInPolicy)?.users).toEqual(expect.arrayContaining([alice.user.id, bob.user.id]));
    expect(byIds(oldDirect)?.event).toMatchObject({ message_type: 'private' });
    expect(byIds(shortLived)?.event).toMatchObject({ stream_id: short.id, topic: 'week' });
  });

  it('keeps everything when neither the organization nor a channel sets a retention', async () => {
    await setRealmRetention(null);
    await setChannelRetention('short', null);
    const old = await postToChannel(t, org.realm, alice.user, org.channels.policy, 'x', 'ancient');
    await age(old, 10_000);
    expect(await archiveExpiredMessages(t)).toBe(0);
    expect(await exists(old)).toBe(true);
    await setChannelRetention('short', 5);
    await age(old, 0);
  });

  it('works through a backlog in batches, each its own archive transaction', async () => {
    await setRealmRetention(30);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await postToChannel(t, org.realm, bob.user, org.channels.policy, 'batch', `m${i}`));
    }
    for (const id of ids) await age(id, 40);
    expect(await archiveExpiredMessages(t, { batchSize: 2 })).toBe(5);
    const transactions = await t.db.archivedMessage.groupBy({
      by: ['archiveTransactionId'],
      where: { id: { in: ids } },
    });
    expect(transactions).toHaveLength(3);
    for (const id of ids) expect(await exists(id)).toBe(false);
  });
});

describe('purgeArchivedMessages', () => {
  it('deletes archive transactions past the delay and keeps younger ones', async () => {
    await setRealmRetention(30);
    const id = await postToChannel(t, org.realm, alice.user, org.channels.policy, 'purge', 'bye');
    await age(id, 40);
    await archiveExpiredMessages(t);
    const { archiveTransactionId } = await t.db.archivedMessage.findUniqueOrThrow({
      where: { id },
    });

    expect(await purgeArchivedMessages(t, { olderThanDays: 30 })).toBe(0);
    expect(await t.db.archivedMessage.count({ where: { id } })).toBe(1);

    await t.db.archiveTransaction.update({
      where: { id: archiveTransactionId },
      data: { archivedAt: new Date(Date.now() - 31 * DAY_MS) },
    });
    expect(await purgeArchivedMessages(t, { olderThanDays: 30 })).toBeGreaterThanOrEqual(1);
    expect(await t.db.archivedMessage.count({ where: { id } })).toBe(0);
    expect(await t.db.archivedUserMessage.count({ where: { messageId: id } })).toBe(0);
  });
});
