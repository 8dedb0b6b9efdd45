import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { postDirect, postToChannel } from '../../../test/message-factories';
import { eventsAfter, ofType, outboxMark } from '../../../test/outbox';
import { type Organization, organization } from '../../../test/organization';
import { archiveExpiredMessages, pauseAfter } from './archive-expired-messages';
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
  it('pauses after each full batch for the rest of its duty cycle, and still archives everything', async () => {
    await setRealmRetention(30);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        await postToChannel(t, org.realm, alice.user, org.channels.policy, 'paced', `p${i}`),
      );
    }
    for (const id of ids) await age(id, 40);
    // Each batch reads the clock twice, so each appears to take 40 ms.
    let ms = 0;
    const pauses: number[] = [];
    const archived = await archiveExpiredMessages(t, {
      batchSize: 2,
      pacing: {
        dutyCycle: 0.25,
        clock: () => (ms += 40),
        sleep: async (pause) => {
          pauses.push(pause);
        },
      },
    });
    expect(archived).toBe(5);
    // Batches of 2, 2 and 1: a pause of 3 x 40 ms after each of the two full ones, none at the end.
    expect(pauses).toEqual([120, 120]);
    for (const id of ids) expect(await exists(id)).toBe(false);
  });

  it('computes no pause at a duty cycle of 1 and the batch time itself at one half', () => {
    expect(pauseAfter(250, 1)).toBe(0);
    expect(pauseAfter(250, 0.5)).toBe(250);
    expect(pauseAfter(250, 0.2)).toBe(1000);
  });

  it('takes many conversations in one batch: one event each, and the first message moves on', async () => {
    await setRealmRetention(30);
    const { short } = org.channels;
    const x1 = await postToChannel(t, org.realm, alice.user, short, 'x', 'x one');
    const x2 = await postToChannel(t, org.realm, bob.user, short, 'x', 'x two');
    const y1 = await postToChannel(t, org.realm, alice.user, short, 'y', 'y one');
    const kept = await postToChannel(t, org.realm, bob.user, short, 'y', 'still young');
    const direct = await postDirect(t, org.realm, bob.user, [alice.user], 'old direct');
    for (const id of [x1, x2, y1]) await age(id, 8);
    await age(direct, 31);
    await t.db.stream.update({ where: { id: short.id }, data: { firstMessageId: x1 } });
    const mark = await outboxMark(t);

    expect(await archiveExpiredMessages(t)).toBe(4);

    const events = await eventsAfter(t, mark);
    const deletions = ofType(events, 'delete_message').map((e) => e.event);
    expect(deletions).toHaveLength(3);
    expect(deletions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stream_id: short.id, topic: 'x', message_ids: [x1, x2] }),
        expect.objectContaining({ stream_id: short.id, topic: 'y', message_ids: [y1] }),
        expect.objectContaining({ message_type: 'private', message_ids: [direct] }),
      ]),
    );
    const moved = ofType(events, 'stream', 'update').map((e) => e.event);
    expect(moved).toEqual([
      expect.objectContaining({ stream_id: short.id, property: 'first_message_id', value: kept }),
    ]);
    const channel = await t.db.stream.findUniqueOrThrow({ where: { id: short.id } });
    expect(channel.firstMessageId).toBe(kept);
    expect(await exists(kept)).toBe(true);
    expect(await t.db.userMessage.count({ where: { messageId: { in: [x1, x2, y1] } } })).toBe(0);
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
