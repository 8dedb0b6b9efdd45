import type { Realm, Stream, User } from '../../../generated/prisma/client';
import { makeRealm, makeUser, type TestRealm, type TestUser } from '../../../test/factories';
import { startTestContext, type TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/message-factories';
import {
  makeOutgoingBot,
  startHttpReceiver,
  type HttpReceiver,
} from '../../../test/worker-factories';
import { sendMessage } from '../messages/send-message';
import { formatMessages } from '../messages/format-message';
import { deliverOutgoingWebhook, RetryableWebhookError } from './deliver-webhook';
import { ownerNoticeText } from './notify-owner';
import { triggeredBots } from './triggers';

let t: TestContext;
let org: TestRealm;
let realm: Realm;
let alice: TestUser;
let receiver: HttpReceiver;
let channel: Stream;

beforeAll(async () => {
  t = await startTestContext({ OUTGOING_WEBHOOK_TIMEOUT_SECONDS: '0.5' });
  org = await makeRealm(t);
  realm = org.realm;
  alice = await makeUser(t, realm, { fullName: 'Alice Sender' });
  receiver = await startHttpReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

beforeEach(() => {
  receiver.requests.length = 0;
  receiver.reply = { status: 200, body: '{"response_not_required": true}' };
});

async function botWithChannel(iface: 1 | 2 = 1) {
  const made = await makeOutgoingBot(t, org, alice.user, {
    payloadUrl: receiver.url,
    interface: iface,
  });
  channel = await makeChannel(t, realm, { subscribers: [alice.user, made.bot] });
  return made;
}

const mention = (bot: User, text = 'hello there') =>
  sendMessage(t, {
    sender: alice.user,
    realm,
    type: 'stream',
    to: channel.id,
    topic: 'bot talk',
    content: `@**${bot.fullName}** ${text}`,
    clientName: 'website',
  });

const latestFrom = (senderId: number, recipientId?: number) =>
  t.db.message.findFirst({
    where: { senderId, ...(recipientId ? { recipientId } : {}) },
    orderBy: { id: 'desc' },
  });

const first = { attempt: 1, isLastAttempt: false };
const last = { attempt: 4, isLastAttempt: true };

describe('triggers (spec 4.22)', () => {
  it('a channel mention and a direct message trigger; a plain channel message and bot senders do not', async () => {
    const { bot } = await botWithChannel();
    const mentioned = await mention(bot);
    expect(await triggeredBots(t, mentioned.id)).toEqual([{ botId: bot.id, trigger: 'mention' }]);
    const plain = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'stream',
      to: channel.id,
      topic: 'x',
      content: 'no mention here',
      clientName: 'website',
    });
    expect(await triggeredBots(t, plain.id)).toEqual([]);
    const dm = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'private',
      to: [bot.id],
      content: 'direct hello',
      clientName: 'website',
    });
    expect(await triggeredBots(t, dm.id)).toEqual([{ botId: bot.id, trigger: 'direct_message' }]);
    const fromBot = await sendMessage(t, {
      sender: bot,
      realm,
      type: 'private',
      to: [alice.user.id],
      content: 'from the bot',
      clientName: 'website',
    });
    expect(await triggeredBots(t, fromBot.id)).toEqual([]);
  });
});

describe('native format', () => {
  it('POSTs the exact payload and posts the {content} reply into the same topic', async () => {
    const { bot, token } = await botWithChannel();
    receiver.reply = { status: 200, body: JSON.stringify({ content: 'pong from bot' }) };
    const sent = await mention(bot, 'ping');
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);

    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0].contentType).toMatch(/^application\/json/);
    const message = await t.db.message.findUniqueOrThrow({ where: { id: sent.id } });
    const [dict] = await formatMessages(t.db, [message], {
      viewer: bot,
      realm,
      applyMarkdown: false,
      clientGravatar: false,
      allowEmptyTopicName: true,
    });
    const body = JSON.parse(receiver.requests[0].body);
    expect(body).toEqual({
      bot_email: bot.email,
      bot_full_name: bot.fullName,
      data: `@**${bot.fullName}** ping`,
      trigger: 'mention',
      token,
      message: JSON.parse(JSON.stringify(dict)),
    });
    expect(body.message).toMatchObject({
      id: sent.id,
      type: 'stream',
      stream_id: channel.id,
      subject: 'bot talk',
      sender_id: alice.user.id,
      sender_full_name: 'Alice Sender',
      display_recipient: channel.name,
      content_type: 'text/x-markdown',
    });

    const reply = await latestFrom(bot.id, channel.recipientId!);
    expect(reply).toMatchObject({ content: 'pong from bot', subject: 'bot talk' });
    expect(reply!.sendingClientName).toBe('OutgoingWebhookResponse');

    // A second run of the same job posts nothing more.
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    expect(await t.db.message.count({ where: { senderId: bot.id } })).toBe(1);
  });

  it('replies to a direct message in the same conversation, with trigger direct_message', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 200, body: JSON.stringify({ content: 'dm answer' }) };
    const sent = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'private',
      to: [bot.id],
      content: 'secret',
      clientName: 'website',
    });
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    const body = JSON.parse(receiver.requests[0].body);
    expect(body).toMatchObject({ trigger: 'direct_message', data: 'secret' });
    expect(body.message.type).toBe('private');
    const original = await t.db.message.findUniqueOrThrow({ where: { id: sent.id } });
    const reply = await latestFrom(bot.id);
    expect(reply).toMatchObject({ content: 'dm answer', recipientId: original.recipientId });
  });

  it('posts nothing for response_not_required or a blank body', async () => {
    const { bot } = await botWithChannel();
    await deliverOutgoingWebhook(t, { messageId: (await mention(bot)).id, botId: bot.id }, first);
    receiver.reply = { status: 200, body: '' };
    await deliverOutgoingWebhook(t, { messageId: (await mention(bot)).id, botId: bot.id }, first);
    expect(receiver.requests).toHaveLength(2);
    expect(await t.db.message.count({ where: { senderId: bot.id } })).toBe(0);
  });
});

describe('third-party-compatible format', () => {
  it('posts the form fields with T/C/U prefixes and posts the text reply', async () => {
    const { bot, token } = await botWithChannel(2);
    receiver.reply = { status: 200, body: JSON.stringify({ text: 'slack style reply' }) };
    const sent = await mention(bot, 'go');
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    expect(receiver.requests[0].contentType).toMatch(/^application\/x-www-form-urlencoded/);
    const message = await t.db.message.findUniqueOrThrow({ where: { id: sent.id } });
    const ts = String(Math.floor(message.dateSent.getTime() / 1000));
    expect(Object.fromEntries(new URLSearchParams(receiver.requests[0].body))).toEqual({
      token,
      team_id: `T${realm.id}`,
      team_domain: org.host,
      channel_id: `C${channel.id}`,
      channel_name: channel.name,
      thread_ts: ts,
      timestamp: ts,
      user_id: `U${alice.user.id}`,
      user_name: 'Alice Sender',
      text: `@**${bot.fullName}** go`,
      trigger_word: 'mention',
      service_id: String(bot.id),
    });
    expect((await latestFrom(bot.id))?.content).toBe('slack style reply');
  });

  it('does not call the bot for a direct message and says so in the conversation', async () => {
    const { bot } = await botWithChannel(2);
    const sent = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'private',
      to: [bot.id],
      content: 'hi',
      clientName: 'website',
    });
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    expect(receiver.requests).toHaveLength(0);
    expect((await latestFrom(bot.id))?.content).toBe(
      "Failure! Slack outgoing webhooks don't support direct messages.",
    );
  });
});

describe('failures', () => {
  const ownerNotices = (since: number) =>
    t.db.message.findMany({
      where: {
        id: { gt: since },
        sender: { fullName: 'Notification Bot', isBot: true },
        userMessages: { some: { userId: alice.user.id } },
      },
    });

  it('a 500 is retried, then the conversation and the owner are told', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 500, body: 'boom' };
    const sent = await mention(bot);
    await expect(
      deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first),
    ).rejects.toBeInstanceOf(RetryableWebhookError);
    expect(await t.db.message.count({ where: { senderId: bot.id } })).toBe(0);
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, last);
    expect((await latestFrom(bot.id))?.content).toBe('Failure! Third party responded with 500');
    const notices = await ownerNotices(sent.id);
    expect(notices).toHaveLength(1);
    expect(notices[0].content).toMatch(
      new RegExp(
        `^\\[A message\\]\\(http://${org.host.replace(/\./g, '\\.')}/#narrow/channel/${channel.id}-.*/near/${sent.id}\\) to your bot @_\\*\\*${bot.fullName}\\*\\* triggered an outgoing webhook\\.\nThe webhook got a response with status code \\*500\\*\\.\nThe response contains the following payload:\n\`\`\`\n'boom'\n\`\`\`$`,
      ),
    );
  });

  it('a slow bot times out (configurable timeout), is retried, then reported', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 200, body: '{"content":"too late"}', delayMs: 1500 };
    const sent = await mention(bot);
    const started = Date.now();
    await expect(
      deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first),
    ).rejects.toThrow('Request timed out after 0.5 seconds.');
    expect(Date.now() - started).toBeLessThan(1400);
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, last);
    expect((await latestFrom(bot.id))?.content).toBe('Failure! Bot is unavailable');
    const notices = await ownerNotices(sent.id);
    expect(notices.map((n) => n.content.split('\n')[1])).toEqual([
      'Request timed out after 0.5 seconds.',
    ]);
  });

  it('invalid JSON is reported at once, without retries', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 200, body: 'this is not json' };
    const sent = await mention(bot);
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    expect((await latestFrom(bot.id))?.content).toBe('Failure! Invalid JSON in response');
    const notices = await ownerNotices(sent.id);
    expect(notices).toHaveLength(1);
    expect(notices[0].content).toContain(
      "triggered an outgoing webhook.\nThe outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Invalid JSON in response\nThe response contains the following payload:\n```\n'this is not json'\n```",
    );
  });

  it('a deleted message or deactivated bot finishes quietly', async () => {
    const { bot } = await botWithChannel();
    const sent = await mention(bot);
    await t.db.user.update({ where: { id: bot.id }, data: { isActive: false } });
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    await deliverOutgoingWebhook(t, { messageId: 99999999, botId: bot.id }, first);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('ownerNoticeText', () => {
  it('matches Zulip’s wording', () => {
    expect(ownerNoticeText('L', 'Bot', { statusCode: 404 })).toBe(
      '[A message](L) to your bot @_**Bot** triggered an outgoing webhook.\nThe webhook got a response with status code *404*.',
    );
  });
});
