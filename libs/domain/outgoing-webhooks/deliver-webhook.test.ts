import type { Realm, Stream, User } from '../../../generated/prisma/client';
import { makeUser, type TestUser } from '../../../test/factories';
import type { TestContext } from '../../../test/harness';
import { makeChannel } from '../../../test/channel-factories';
import {
  makeOutgoingBot,
  startHttpReceiver,
  type HttpReceiver,
} from '../../../test/worker-factories';
import { sendMessage } from '../messages/send-message';
import { formatMessages } from '../messages/format-message';
import { deliverOutgoingWebhook, RetryableWebhookError } from './deliver-webhook';
import { ownerNoticeText } from './notify-owner';
import { reprBytes, reprText } from './python-repr';
import { parseReply } from './reply';
import { triggeredBots } from './triggers';
import { type Organization, organization } from '../../../test/organization';

let t: TestContext;
let org: Organization;
let realm: Realm;
let alice: TestUser;
let receiver: HttpReceiver;
let channel: Stream;

beforeAll(async () => {
  // The bot's server is a loopback receiver, which the egress policy denies unless allowed.
  org = await organization({
    env: {
      OUTGOING_WEBHOOK_TIMEOUT_SECONDS: '0.5',
      OUTGOING_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    },
    members: { alice: { fullName: 'Alice Sender' } },
  });
  ({ t, realm } = org);
  ({ alice } = org.users);
  receiver = await startHttpReceiver();
});
afterAll(async () => {
  await receiver.close();
  await org.close();
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
    expect(await triggeredBots(t.db, mentioned.id)).toEqual([
      { botId: bot.id, trigger: 'mention' },
    ]);
    const plain = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'stream',
      to: channel.id,
      topic: 'x',
      content: 'no mention here',
      clientName: 'website',
    });
    expect(await triggeredBots(t.db, plain.id)).toEqual([]);
    const dm = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'private',
      to: [bot.id],
      content: 'direct hello',
      clientName: 'website',
    });
    expect(await triggeredBots(t.db, dm.id)).toEqual([
      { botId: bot.id, trigger: 'direct_message' },
    ]);
    const fromBot = await sendMessage(t, {
      sender: bot,
      realm,
      type: 'private',
      to: [alice.user.id],
      content: 'from the bot',
      clientName: 'website',
    });
    expect(await triggeredBots(t.db, fromBot.id)).toEqual([]);
  });
});

describe('triggers of bots that do not receive the message', () => {
  it('a channel mention triggers an unsubscribed bot; a direct message to others does not', async () => {
    const { bot } = await makeOutgoingBot(t, org, alice.user, { payloadUrl: receiver.url });
    const quiet = await makeChannel(t, realm, { subscribers: [alice.user] });
    const content = `@**${bot.fullName}** are you there?`;
    const inChannel = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'stream',
      to: quiet.id,
      topic: 'x',
      content,
      clientName: 'website',
    });
    expect(await triggeredBots(t.db, inChannel.id, [bot.id])).toEqual([
      { botId: bot.id, trigger: 'mention' },
    ]);
    const other = await makeUser(t, realm);
    const dm = await sendMessage(t, {
      sender: alice.user,
      realm,
      type: 'private',
      to: [other.user.id],
      content,
      clientName: 'website',
    });
    expect(await triggeredBots(t.db, dm.id, [bot.id])).toEqual([]);
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

describe('failures (Zulip’s do_rest_call and notify_bot_owner)', () => {
  /** What the bot said in the channel, newest first. */
  const saidInChannel = (bot: User) =>
    t.db.message.findMany({
      where: { senderId: bot.id, recipientId: channel.recipientId! },
      orderBy: { id: 'desc' },
    });

  /** The bot's direct messages to its owner (Alice). */
  const ownerNotices = (bot: User) =>
    t.db.message.findMany({
      where: {
        senderId: bot.id,
        isChannelMessage: false,
        userMessages: { some: { userId: alice.user.id } },
      },
      orderBy: { id: 'asc' },
    });

  const header = (bot: User, messageId: number) =>
    `[A message](http://${org.host}/#narrow/channel/${channel.id}-${channel.name}/topic/bot.20talk/near/${messageId}) to your bot @_**${bot.fullName}** triggered an outgoing webhook.`;

  it('an error status is reported at once, without retries, quoting the raw bytes', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 500, body: "boom 'n' stuff" };
    const sent = await mention(bot);
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    expect(receiver.requests).toHaveLength(1);
    expect((await saidInChannel(bot)).map((m) => m.content)).toEqual([
      'Failure! Third party responded with 500',
    ]);
    const notices = await ownerNotices(bot);
    expect(notices.map((n) => n.content)).toEqual([
      `${header(bot, sent.id)}\nThe webhook got a response with status code *500*.\nThe response contains the following payload:\n\`\`\`\nb"boom 'n' stuff"\n\`\`\``,
    ]);
    expect(notices[0].sendingClientName).toBe('OutgoingWebhookResponse');
  });

  it('an empty error response has no payload part; 407 names a disallowed network', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 404, body: '' };
    const first404 = await mention(bot);
    await deliverOutgoingWebhook(t, { messageId: first404.id, botId: bot.id }, first);
    receiver.reply = { status: 407, body: '' };
    const proxied = await mention(bot);
    await deliverOutgoingWebhook(t, { messageId: proxied.id, botId: bot.id }, first);
    expect((await saidInChannel(bot)).map((m) => m.content)).toEqual([
      'Failure! Third party responded with 407',
      'Failure! Third party responded with 404',
    ]);
    expect((await ownerNotices(bot)).map((n) => n.content)).toEqual([
      `${header(bot, first404.id)}\nThe webhook got a response with status code *404*.`,
      `${header(bot, proxied.id)}\nThe URL configured for the webhook is for a private or disallowed network.`,
    ]);
  });

  it('a slow bot times out (configurable timeout), is retried, then is unavailable', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 200, body: '{"content":"too late"}', delayMs: 1500 };
    const sent = await mention(bot);
    const started = Date.now();
    await expect(
      deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first),
    ).rejects.toThrow(new RetryableWebhookError('Request timed out after 0.5 seconds.'));
    expect(Date.now() - started).toBeLessThan(1400);
    expect(await saidInChannel(bot)).toEqual([]);
    expect(await ownerNotices(bot)).toEqual([]);
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, last);
    expect((await saidInChannel(bot)).map((m) => m.content)).toEqual([
      'Failure! Bot is unavailable',
    ]);
    expect((await ownerNotices(bot)).map((n) => n.content)).toEqual([
      `${header(bot, sent.id)}\nRequest timed out after 0.5 seconds.`,
    ]);
  });

  it('a connection error is retried, then the bot is unavailable', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { hangUp: true };
    const sent = await mention(bot);
    await expect(
      deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first),
    ).rejects.toThrow(
      new RetryableWebhookError('A connection error occurred. Is my bot server down?'),
    );
    expect(await saidInChannel(bot)).toEqual([]);
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, last);
    expect(receiver.requests).toHaveLength(2);
    expect((await saidInChannel(bot)).map((m) => m.content)).toEqual([
      'Failure! Bot is unavailable',
    ]);
    expect((await ownerNotices(bot)).map((n) => n.content)).toEqual([
      `${header(bot, sent.id)}\nA connection error occurred. Is my bot server down?`,
    ]);
  });

  it('invalid JSON and a non-object reply are reported at once, quoting the text', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 200, body: 'this is not json' };
    const notJson = await mention(bot);
    await deliverOutgoingWebhook(t, { messageId: notJson.id, botId: bot.id }, first);
    receiver.reply = { status: 200, body: '["a", "list"]' };
    const list = await mention(bot);
    await deliverOutgoingWebhook(t, { messageId: list.id, botId: bot.id }, first);
    expect(receiver.requests).toHaveLength(2);
    expect((await saidInChannel(bot)).map((m) => m.content)).toEqual([
      'Failure! Invalid response format',
      'Failure! Invalid JSON in response',
    ]);
    const attempted =
      'The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:';
    expect((await ownerNotices(bot)).map((n) => n.content)).toEqual([
      `${header(bot, notJson.id)}\n${attempted}\n> Invalid JSON in response\nThe response contains the following payload:\n\`\`\`\n'this is not json'\n\`\`\``,
      `${header(bot, list.id)}\n${attempted}\n> Invalid response format\nThe response contains the following payload:\n\`\`\`\n'["a", "list"]'\n\`\`\``,
    ]);
  });

  it('any other exception is reported at once with its type', async () => {
    const { bot } = await botWithChannel();
    await t.db.service.updateMany({ where: { userId: bot.id }, data: { baseUrl: 'not a url' } });
    const sent = await mention(bot, 'ping');
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    expect((await saidInChannel(bot)).map((m) => m.content)).toEqual([
      `Failure! An exception of type *TypeError* occurred for message \`@**${bot.fullName}** ping\`! See the Zulip server logs for more information.`,
    ]);
    expect((await ownerNotices(bot)).map((n) => n.content)).toEqual([
      `${header(bot, sent.id)}\nWhen trying to send a request to the webhook service, an exception of type TypeError occurred:\n\`\`\`\nInvalid URL\n\`\`\``,
    ]);
  });

  it('a conversation that can no longer take the failure still leaves the owner told', async () => {
    const { bot } = await botWithChannel();
    receiver.reply = { status: 503, body: '' };
    const sent = await mention(bot);
    await t.db.stream.update({ where: { id: channel.id }, data: { isArchived: true } });
    await deliverOutgoingWebhook(t, { messageId: sent.id, botId: bot.id }, first);
    expect(await saidInChannel(bot)).toEqual([]);
    expect((await ownerNotices(bot)).map((n) => n.content)).toEqual([
      `${header(bot, sent.id)}\nThe webhook got a response with status code *503*.`,
    ]);
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

describe('replies Zulip posts nothing for', () => {
  it('blank content, the JSON string "", and no content key; response_string is still read', async () => {
    expect(parseReply('{"content": "  \\n "}', 1)).toEqual({ kind: 'none' });
    expect(parseReply('""', 1)).toEqual({ kind: 'none' });
    expect(parseReply('{"other": 1}', 1)).toEqual({ kind: 'none' });
    expect(parseReply('{"response_not_required": true, "content": "x"}', 1)).toEqual({
      kind: 'none',
    });
    expect(parseReply('{"response_string": "legacy"}', 1)).toEqual({
      kind: 'post',
      content: 'legacy',
    });
    expect(parseReply('{"text": " "}', 2)).toEqual({ kind: 'none' });
    expect(parseReply('{"content": "native only"}', 2)).toEqual({ kind: 'none' });
  });
});

describe('Python repr of the quoted response', () => {
  it('quotes and escapes text as repr(str) does', () => {
    expect(reprText('plain')).toBe("'plain'");
    expect(reprText("it's")).toBe('"it\'s"');
    expect(reprText(`both ' and "`)).toBe(`'both \\' and "'`);
    expect(reprText('tab\there\nback\\slash')).toBe("'tab\\there\\nback\\\\slash'");
    expect(reprText('caf\u00e9 \u00a0\u200b\u0007')).toBe("'caf\u00e9 \\xa0\\u200b\\x07'");
  });

  it('quotes bytes as repr(bytes) does', () => {
    expect(reprBytes(Buffer.from('boom'))).toBe("b'boom'");
    expect(reprBytes(Buffer.from('café\r\n', 'utf8'))).toBe("b'caf\\xc3\\xa9\\r\\n'");
    expect(reprBytes(Buffer.from("it's"))).toBe('b"it\'s"');
  });
});

describe('ownerNoticeText', () => {
  it('puts an exception before a failure message before a status code', () => {
    expect(
      ownerNoticeText('L', 'Bot', {
        exception: { type: 'E', message: 'm' },
        failureMessage: 'f',
        statusCode: 404,
      }),
    ).toBe(
      '[A message](L) to your bot @_**Bot** triggered an outgoing webhook.\nWhen trying to send a request to the webhook service, an exception of type E occurred:\n```\nm\n```',
    );
    expect(ownerNoticeText('L', 'Bot', { failureMessage: 'f', statusCode: 404 })).toBe(
      '[A message](L) to your bot @_**Bot** triggered an outgoing webhook.\nf',
    );
  });
});
