import type { Stream } from '../../../generated/prisma/client';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { type Organization, organization } from '../../../test/organization';
import { notifyMessageJobId } from './enqueue-notifications';
import { Visibility } from './notification-rules';

let t: TestContext;
let org: Organization;
let alice: TestUser;
let bob: TestUser;
let channel: Stream;

beforeAll(async () => {
  org = await organization({
    members: { alice: { fullName: 'Alice Sender' }, bob: { fullName: 'Bob Reader' } },
    channels: { quiet: ['alice', 'bob'] },
  });
  ({ t } = org);
  ({ alice, bob } = org.users);
  channel = org.channels.quiet;
});
afterAll(() => org.close());

async function send(from: TestUser, form: Record<string, string>): Promise<number> {
  const res = await org.as(from).post('/messages', form).expect(200);
  return res.body.id as number;
}
const post = (topic: string, content: string) =>
  send(alice, { type: 'stream', to: String(channel.id), topic, content });

/** Whether the message was written owing a notification decision: its row and its job. */
async function owed(messageId: number): Promise<{ pending: boolean; job: boolean }> {
  const pending = await t.db.notificationPending.count({ where: { messageId } });
  const job = await t.db.jobOutbox.count({ where: { jobId: notifyMessageJobId(messageId) } });
  return { pending: pending > 0, job: job > 0 };
}
const OWED = { pending: true, job: true };
const NOT_OWED = { pending: false, job: false };

describe('the notification decision a new message owes', () => {
  it('is not owed by a channel message nobody can be notified of', async () => {
    expect(await owed(await post('plain', 'nothing for anyone'))).toEqual(NOT_OWED);
  });

  it('is owed by a direct message', async () => {
    const id = await send(alice, {
      type: 'direct',
      to: JSON.stringify([bob.user.id]),
      content: 'just us',
    });
    expect(await owed(id)).toEqual(OWED);
  });

  it('is owed by a mention and by a wildcard mention of a recipient', async () => {
    expect(await owed(await post('named', 'hi @**Bob Reader**'))).toEqual(OWED);
    expect(await owed(await post('named', 'hi @**all**'))).toEqual(OWED);
  });

  it("is not owed for the sender's own settings or mention", async () => {
    await t.db.user.update({
      where: { id: alice.user.id },
      data: { enableStreamPushNotifications: true },
    });
    try {
      expect(await owed(await post('own', 'me, @**Alice Sender**'))).toEqual(NOT_OWED);
    } finally {
      await t.db.user.update({
        where: { id: alice.user.id },
        data: { enableStreamPushNotifications: false },
      });
    }
  });

  it("is owed by a recipient's alert word", async () => {
    await t.db.alertWord.create({ data: { userId: bob.user.id, word: 'deploy' } });
    try {
      expect(await owed(await post('alerts', 'the deploy is done'))).toEqual(OWED);
    } finally {
      await t.db.alertWord.deleteMany({ where: { userId: bob.user.id } });
    }
  });

  it("follows a recipient's channel settings: the subscription's, else the user's", async () => {
    const subscription = { userId: bob.user.id, recipientId: channel.recipientId as number };
    await t.db.user.update({
      where: { id: bob.user.id },
      data: { enableStreamEmailNotifications: true },
    });
    expect(await owed(await post('settings', 'by default'))).toEqual(OWED);
    await t.db.subscription.updateMany({
      where: subscription,
      data: { emailNotifications: false },
    });
    expect(await owed(await post('settings', 'turned off here'))).toEqual(NOT_OWED);
    await t.db.user.update({
      where: { id: bob.user.id },
      data: { enableStreamEmailNotifications: false },
    });
    await t.db.subscription.updateMany({ where: subscription, data: { pushNotifications: true } });
    expect(await owed(await post('settings', 'pushed here'))).toEqual(OWED);
    await t.db.subscription.updateMany({
      where: subscription,
      data: { pushNotifications: null, emailNotifications: null },
    });
  });

  it('is owed in a topic someone follows, in any case of its name', async () => {
    await t.db.userTopic.create({
      data: {
        userId: bob.user.id,
        streamId: channel.id,
        recipientId: channel.recipientId as number,
        topicName: 'Followed',
        visibilityPolicy: Visibility.FOLLOWED,
      },
    });
    expect(await owed(await post('followed', 'in the followed topic'))).toEqual(OWED);
    expect(await owed(await post('elsewhere', 'in another topic'))).toEqual(NOT_OWED);
  });
});
