import type { Stream, User } from '../../../generated/prisma/client';
import type { TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import {
  makeOutgoingBot,
  startHttpReceiver,
  type HttpReceiver,
} from '../../../test/worker-factories';
import { sendMessage } from '../messages/send-message';
import { deliverOutgoingWebhook } from './deliver-webhook';
import { type Organization, organization } from '../../../test/organization';

/**
 * Issue 11: a bot URL on a denied network is refused (no request leaves), and reported the way
 * Zulip reports what its egress proxy refuses. No OUTGOING_WEBHOOK_ALLOWED_HOSTS here.
 */

let t: TestContext;
let org: Organization;
let alice: TestUser;
let receiver: HttpReceiver;

beforeAll(async () => {
  org = await organization({ members: { alice: { fullName: 'Alice Owner' } } });
  ({ t } = org);
  ({ alice } = org.users);
  receiver = await startHttpReceiver();
});
afterAll(async () => {
  await receiver.close();
  await org.close();
});

async function deliverTo(payloadUrl: string) {
  const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl });
  const channel = await makeChannel(t, org.realm, { subscribers: [alice.user, bot] });
  const sent = await sendMessage(t, {
    sender: alice.user,
    realm: org.realm,
    type: 'stream',
    to: channel.id,
    topic: 'ssrf',
    content: `@**${bot.fullName}** fetch the metadata`,
    clientName: 'website',
  });
  // Not the last attempt: a refusal must be final anyway, never retried.
  await deliverOutgoingWebhook(
    t,
    { messageId: sent.id, botId: bot.id },
    {
      attempt: 1,
      isLastAttempt: false,
    },
  );
  return { bot, channel, messageId: sent.id };
}

const saidBy = (bot: User, channel: Stream) =>
  t.db.message.findMany({ where: { senderId: bot.id, recipientId: channel.recipientId! } });

const noticesTo = (bot: User) =>
  t.db.message.findMany({
    where: {
      senderId: bot.id,
      isChannelMessage: false,
      userMessages: { some: { userId: alice.user.id } },
    },
  });

describe('a bot URL on a denied network', () => {
  it.each([
    ['a loopback address', () => receiver.url],
    ['a name resolving to loopback', () => receiver.url.replace('127.0.0.1', 'localhost')],
    [
      'an IPv4-mapped IPv6 loopback address',
      () => receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'),
    ],
    ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('is refused for %s and the owner is told in Zulip words', async (_what, url) => {
    const { bot, channel, messageId } = await deliverTo(url());
    expect(receiver.requests).toHaveLength(0);
    expect((await saidBy(bot, channel)).map((m) => m.content)).toEqual([
      'Failure! Third party responded with 407',
    ]);
    const notices = await noticesTo(bot);
    expect(notices).toHaveLength(1);
    expect(notices[0].content).toContain(`/near/${messageId}) to your bot @_**${bot.fullName}**`);
    expect(notices[0].content).toMatch(
      /triggered an outgoing webhook\.\nThe URL configured for the webhook is for a private or disallowed network\.$/,
    );
  });
});
