import { types } from 'node:util';
import { Prisma, type Realm, type Stream, type User } from '../../../generated/prisma/client';
import { userDeactivated } from '../../core/errors';
import { sqlState } from '../../db/errors';
import { inOneStatement, inTransaction, type EventSink, type SqlRunner } from '../../events/outbox';
import type { Db, Tx } from '../../db/client';
import { renderMarkdown, type Linkifier, type MarkdownContext } from '../../markdown';
import type { AppContext } from '../../core/context';
import { markdownContextFor } from '../markdown-context';
import { plainReadsOf } from '../realm-row-cache';
import {
  directRecipientId,
  resolveDirectUsers,
  type ChannelTarget,
  type DirectTarget,
} from './addressees';
import { normalizeContent } from './content';
import { formatMessages, type MessageRow } from './format-message';
import { Flag, flagNames } from './flags';
import { groupByFlags, recipientFlags } from './recipient-flags';
import { sentByHuman } from './sending-client';
import { mayTriggerBots, writeOutgoingWebhookJobs } from '../outgoing-webhooks/triggers';
import { claimAttachments, linkedUploadPathIds } from '../attachments/claim-attachments';
import { checkAddressee } from './check-addressee';
import { CHANNEL_TYPES, DIRECT_TYPES } from './types';
import { oweNotificationDecision } from '../notifications/enqueue-notifications';
import { channelMayNotifySql, mayNotify } from '../notifications/may-notify';
import { oweLinkEmbeds } from '../link-previews/embed-links';
import { messageEvent } from '../../protocol/events/message';
import { streamEvent } from '../../protocol/events/stream';
import { channelAudienceIds } from '../permissions/channels';
import { isPrivateChannel } from '../permissions/channel-kinds';
import { Permission, requireAccess } from '../permissions/access';
import { at } from '../../core/at';

export type SendType = (typeof CHANNEL_TYPES)[number] | (typeof DIRECT_TYPES)[number];

export interface SendMessageInput {
  sender: User;
  realm: Realm;
  type: SendType;
  to: ChannelTarget | DirectTarget;
  topic?: string;
  content: string;
  clientName: string;
  /** null/undefined: decided by the sending client (see sentByHuman). */
  readBySender?: boolean | null;
  localId?: string;
  queueId?: string;
  /**
   * A notice from the organization's notification bot. Like Zulip's system bots it may post to
   * any channel that is not archived and quote anyone's text, so neither the channel's posting
   * permissions nor mention permissions are checked.
   */
  systemNotice?: boolean;
  /** Other users whose copies start read (Zulip's mark_as_read: whoever caused a notice). */
  readBy?: number[];
}

/**
 * POST /messages: validate the addressees and content, check the sender may post there, render
 * the Markdown, then insert the message and every recipient's UserMessage row (one bulk INSERT),
 * and emit `message` events, one per distinct flag set. A channel message that links no upload
 * and can trigger no bot (nearly all) writes nothing but those rows, its event and its jobs: one
 * statement, without a transaction around it; any other in one transaction.
 */
export async function sendMessage(
  ctx: AppContext,
  input: SendMessageInput,
): Promise<{ id: number }> {
  const prepared = await prepareMessage(ctx, input);
  const { channel } = prepared;
  if (!channel || needsTransaction(prepared)) {
    return inTransaction(ctx, (tx, events) => writeMessage(tx, events, prepared));
  }
  return writingAsSender(() =>
    inOneStatement(ctx, async (run, events) => {
      const message = await composeMessage(prepared, {
        reader: ctx.db,
        run,
        recipientId: channel.recipientId as number,
      });
      events.write(message.rows);
      await emitMessage(events, prepared, message);
      return { id: message.id };
    }),
  );
}

/** Whether a channel message writes more than its own rows: upload links or bots to call. */
const needsTransaction = (prepared: PreparedMessage): boolean =>
  linkedUploadPathIds(prepared.rendered.html).length > 0 ||
  mayCallBots(prepared) ||
  prepared.channel?.firstMessageId === null;

/** Whether the message can trigger an outgoing-webhook bot, known without a query. */
const mayCallBots = ({ input, channel, rendered }: PreparedMessage): boolean =>
  mayTriggerBots({
    sender: input.sender,
    isChannelMessage: channel !== null,
    mentionedUserIds: rendered.mentionedUserIds,
    mentionedGroupIds: rendered.mentionedGroupIds,
  });

/** A sender's content for a channel (null: a direct message), to be rendered. */
export interface MessageToRender {
  realm: Realm;
  sender: User;
  channel: Stream | null;
  content: string;
  /** Where mentions are checked; the caller's transaction when it has one. */
  db?: Db | Tx;
  /** The organization's emoji and linkifiers, when the caller has started loading them. */
  markdown?: Promise<MarkdownContext>;
}

/**
 * Renders content for a realm and refuses group and channel-wide mentions the sender may not
 * make (`can_mention_group`, `can_mention_many_users_group` above the channel-size threshold).
 */
export async function renderCheckingMentions(
  ctx: AppContext,
  {
    realm,
    sender,
    channel,
    content,
    db = ctx.db,
    markdown = markdownContextFor(db, ctx.config, realm),
  }: MessageToRender,
): Promise<Awaited<ReturnType<typeof renderMarkdown>>> {
  const rendered = await renderMarkdown(content, await markdown);
  if (rendered.mentionedGroupIds.length) {
    await requireAccess(db, {
      auth: { user: sender },
      permission: Permission.UserGroupMention,
      ids: rendered.mentionedGroupIds,
    });
  }
  if (channel && rendered.streamWildcardMentioned) {
    await requireAccess(db, {
      auth: { user: sender, realm },
      permission: Permission.ChannelWildcardMention,
      ids: [channel.id],
    });
  }
  return rendered;
}

/** A message checked, addressed and rendered: everything but the write. */
export interface PreparedMessage {
  input: SendMessageInput;
  content: string;
  channel: Stream | null;
  topic: string;
  directUsers: Awaited<ReturnType<typeof resolveDirectUsers>>;
  rendered: Awaited<ReturnType<typeof renderMarkdown>>;
  senderRead: boolean;
  /** The organization's linkifiers as the rendering read them (for the event's topic links). */
  linkifiers: Linkifier[];
}

/**
 * Validation, authorization and rendering (reads only), so that a caller with a transaction of
 * its own (scheduled delivery) can write the message inside it. `db` is that transaction when
 * the caller reads in it: a scheduled delivery, or a notice in a channel created in it.
 */
export async function prepareMessage(
  ctx: AppContext,
  input: SendMessageInput,
  db: Db | Tx = ctx.db,
): Promise<PreparedMessage> {
  const { sender, realm } = input;
  const content = normalizeContent(input.content);
  // The organization's emoji and linkifiers load while the addressee is checked; a refusal
  // below leaves the load unawaited, hence the handler.
  // Outside a transaction, both reads go to the plain pool (see `sqlPool`) or the process's
  // memory of the organization's rows.
  const plain = db === ctx.db ? plainReadsOf(ctx) : undefined;
  const markdown = markdownContextFor(db, ctx.config, realm, plain);
  void markdown.catch(() => undefined);

  const { channel, topic, directUsers } = await checkAddressee(db, {
    realm,
    sender,
    draft: input,
    systemNotice: input.systemNotice,
    plain,
  });

  const rendered = input.systemNotice
    ? await renderMarkdown(content, await markdown)
    : await renderCheckingMentions(ctx, { realm, sender, channel, content, db, markdown });
  // Spec 2.9: messages start unread, except the sender's own copy when sent from one of
  // Zulip's interactive clients; `read_by_sender` (FL 236) overrides that default.
  const senderRead = input.readBySender ?? sentByHuman(input.clientName);

  const { linkifiers } = await markdown;
  return { input, content, channel, topic, directUsers, rendered, senderRead, linkifiers };
}

/**
 * Inserts a prepared message and every recipient's UserMessage row, and emits its events, in the
 * caller's transaction, with the jobs the message calls for (outgoing webhooks, the notification
 * decision), so no caller has to remember them.
 */
export async function writeMessage(
  tx: Tx,
  events: EventSink,
  prepared: PreparedMessage,
): Promise<{ id: number }> {
  const { input, channel, directUsers, rendered } = prepared;
  const { sender, realm } = input;
  const senderRow = {
    id: sender.id,
    email: sender.email,
    fullName: sender.fullName,
    isActive: sender.isActive,
    isMirrorDummy: sender.isMirrorDummy,
    isBot: sender.isBot,
    recipientId: sender.recipientId,
    realmId: sender.realmId,
  };
  const recipientId = channel
    ? (channel.recipientId as number)
    : await directRecipientId(tx, realm.id, senderRow, directUsers);
  const message = await composeMessage(prepared, {
    reader: tx,
    run: (sql) => tx.$queryRaw(sql),
    recipientId,
  });
  await writingAsSender(() => tx.$executeRaw(Prisma.sql`WITH ${message.rows} SELECT 1`));
  await claimAttachments(tx, events, {
    messageId: message.id,
    sender,
    renderedContent: rendered.html,
    hadUploadLinks: false,
  });
  await emitMessage(events, prepared, message);
  if (channel && channel.firstMessageId === null) {
    await emitFirstMessageId(tx, events, channel, message);
  }
  // Spec 4.22: outgoing-webhook bots mentioned or addressed get a job each; most messages can
  // trigger none, and skip the query.
  if (mayCallBots(prepared)) {
    await writeOutgoingWebhookJobs(tx, message.id, rendered.mentionedUserIds);
  }
  return { id: message.id };
}

/**
 * A channel's first message: those who see the channel but do not receive the message learn its
 * new first_message_id (recipients set it from the message event, as Zulip's clients do).
 */
async function emitFirstMessageId(
  tx: Tx,
  events: EventSink,
  channel: Stream,
  message: ComposedMessage,
): Promise<void> {
  const recipients = new Set(message.userIds);
  const others = [...(await channelAudienceIds(tx, channel.realmId, channel))].filter(
    (id) => !recipients.has(id),
  );
  await events.emit(
    channel.realmId,
    streamEvent({
      op: 'update',
      stream_id: channel.id,
      name: channel.name,
      property: 'first_message_id',
      value: message.id,
    }),
    others,
  );
}

/** A message ready to write: its id, its rows as statements, and its event. */
interface ComposedMessage {
  id: number;
  /**
   * The message, every recipient's copy (one row each), the notification decision it owes if it
   * may notify anyone (kept until a worker has made it; docs/notifications.md) and, for a
   * channel's first message, the channel's `first_message_id`: common table expressions of one
   * statement.
   */
  rows: Prisma.Sql;
  userIds: number[];
  flags: number[];
  dict: Awaited<ReturnType<typeof formatMessages>>[number];
  owesDecision: boolean;
}

/**
 * Who receives the message, with which flags, and its event, read and built before anything is
 * written: the message's id is drawn from its sequence with the recipients, in one statement
 * (`run`), so the rows and the event can go in the same statement as the event's outbox row.
 * `reader` serves the rarer reads (group mentions, topic participants).
 */
async function composeMessage(
  prepared: PreparedMessage,
  { reader, run, recipientId }: { reader: Db | Tx; run: SqlRunner; recipientId: number },
): Promise<ComposedMessage> {
  const { input, content, channel, topic, rendered, senderRead } = prepared;
  const drawn = await drawRecipients(prepared, run, recipientId);
  const { id, dateSent, userIds, alertWords } = drawn;
  const computed = await recipientFlags(reader, {
    senderId: input.sender.id,
    recipientUserIds: userIds,
    rendered,
    content,
    isPrivate: !channel,
    senderRead,
    topic: channel ? { recipientId, name: topic } : undefined,
    alertWords,
  });
  const readBy = new Set(input.readBy ?? []);
  const flags = computed.map((bits, i) => (readBy.has(at(userIds, i)) ? bits | Flag.read : bits));
  const owesDecision = mayNotify(channel !== null, input.sender.id, {
    userIds,
    flags,
    channelMayNotify: drawn.channelMayNotify,
  });
  const message = { id, dateSent, recipientId };
  const rows = messageRows(prepared, { ...message, userIds, flags, owesDecision });
  const dict = await newMessageDict(reader, prepared, message);
  return { id, rows, userIds, flags, dict, owesDecision };
}

/** The message's id and date, drawn with its recipients and their alert words in one statement. */
interface DrawnRecipients {
  id: number;
  dateSent: Date;
  /** A channel's active subscribers, or the conversation's users in their order; the sender too. */
  userIds: number[];
  alertWords: Map<number, string[]>;
  /** The recipients for whom a channel's own settings may notify (`channelMayNotifySql`). */
  channelMayNotify: Set<number>;
}

async function drawRecipients(
  { input, channel, directUsers, topic }: PreparedMessage,
  run: SqlRunner,
  recipientId: number,
): Promise<DrawnRecipients> {
  const { sender } = input;
  const conversation = channel ? [] : [...new Set([sender.id, ...directUsers.map((u) => u.id)])];
  const recipients = channel
    ? Prisma.sql`LEFT JOIN subscriptions s
        ON s.recipient_id = ${recipientId} AND s.active AND s.is_user_active`
    : Prisma.sql`LEFT JOIN unnest(${conversation}::int[]) AS s(user_id) ON true`;
  const mayNotifyColumn = channel ? channelMayNotifySql(channel, topic) : Prisma.sql`false`;
  const rows = await run<{
    id: number;
    date_sent: Date;
    user_id: number | null;
    words: string[] | null;
    may_notify: boolean | null;
  }>(Prisma.sql`
    SELECT m.id, m.date_sent, s.user_id,
           (SELECT array_agg(a.word) FROM alert_words a WHERE a.user_id = s.user_id) AS words,
           ${mayNotifyColumn} AS may_notify
    FROM (SELECT nextval('messages_id_seq')::int AS id, now() AS date_sent) m
    ${recipients}`);
  // One drawn id left-joined to the recipients: at least one row.
  const { id, date_sent: dateSent } = at(rows, 0);
  const userIds = channel
    ? rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id]))
    : conversation;
  if (!userIds.includes(sender.id)) userIds.push(sender.id);
  const alertWords = new Map(
    rows.flatMap((r) => (r.user_id !== null && r.words ? [[r.user_id, r.words]] : [])),
  );
  const channelMayNotify = new Set(
    rows.flatMap((r) => (r.user_id !== null && r.may_notify ? [r.user_id] : [])),
  );
  return { id, dateSent, userIds, alertWords, channelMayNotify };
}

/** What the message's rows are built from, once its id and recipients are drawn. */
interface DrawnMessage {
  id: number;
  dateSent: Date;
  recipientId: number;
}

/** A drawn message with its recipients and each one's flags, in the same order. */
interface MessageCopies extends DrawnMessage {
  userIds: number[];
  flags: number[];
  /** Whether the message owes a notification decision (`mayNotify`). */
  owesDecision: boolean;
}

/**
 * The message, every recipient's copy, the notification decision it owes if any and, for a
 * channel's first message, the channel's `first_message_id`, as common table expressions of one
 * statement.
 */
function messageRows(
  { input, content, channel, topic, rendered }: PreparedMessage,
  { id, dateSent, recipientId, userIds, flags, owesDecision }: MessageCopies,
): Prisma.Sql {
  const { sender, realm } = input;
  const firstInChannel =
    channel && channel.firstMessageId === null
      ? Prisma.sql`, first_message AS (
          UPDATE streams SET first_message_id = ${id}
          WHERE id = ${channel.id} AND first_message_id IS NULL)`
      : Prisma.empty;
  const pending = owesDecision
    ? Prisma.sql`, pending AS (
        INSERT INTO notification_pending (message_id) VALUES (${id}))`
    : Prisma.empty;
  return Prisma.sql`
    message AS (
      INSERT INTO messages (id, realm_id, sender_id, recipient_id, subject, content,
                            rendered_content, rendered_content_version, sending_client_name,
                            has_attachment, has_image, has_link, is_channel_message, date_sent)
      VALUES (${id}, ${realm.id}, ${activeSender(sender.id)}, ${recipientId}, ${topic}, ${content},
              ${rendered.html}, 1, ${input.clientName}, ${rendered.hasAttachment},
              ${rendered.hasImage}, ${rendered.hasLink}, ${channel !== null}, ${dateSent})
    ), copies AS (
      INSERT INTO user_messages (user_id, message_id, flags)
      SELECT u, ${id}, f FROM unnest(${userIds}::int[], ${flags}::bigint[]) AS t(u, f)
    )${pending}${firstInChannel}`;
}

/** The new message as its event carries it, formatted for its sender. */
async function newMessageDict(
  reader: Db | Tx,
  { input, content, channel, topic, rendered, linkifiers }: PreparedMessage,
  { id, dateSent, recipientId }: DrawnMessage,
): Promise<ComposedMessage['dict']> {
  const { sender, realm } = input;
  const row: MessageRow = {
    id,
    senderId: sender.id,
    recipientId,
    subject: topic,
    content,
    renderedContent: rendered.html,
    dateSent,
    sendingClientName: input.clientName,
    lastEditTime: null,
    lastMovedTime: null,
    editHistory: null,
  };
  const formatted = await formatMessages(reader, [row], {
    viewer: sender,
    realm,
    applyMarkdown: true,
    clientGravatar: false,
    allowEmptyTopicName: true,
    newlyWritten: true,
    known: {
      users: [sender],
      channels: channel ? [{ recipientId, channelId: channel.id, name: channel.name }] : [],
      linkifiers,
    },
  });
  return at(formatted, 0);
}

/**
 * The sender's id, read with the sender's row key-share-locked and only while the sender is
 * active. A deactivation locks that row `FOR UPDATE` (setActive), so it waits for a message
 * already being written, and a message written after it sees the sender inactive: the id is then
 * null, the insert fails (`lostSender`) and nothing of the message commits. So no message commits
 * after its sender's deactivation has. `FOR KEY SHARE` is the foreign key's own lock on that row
 * (no extra write), and unlike `FOR SHARE` it does not wait for, or hold up, the sender's other
 * updates (settings, flags), which lock the row `FOR NO KEY UPDATE`.
 */
const activeSender = (senderId: number): Prisma.Sql =>
  Prisma.sql`(SELECT id FROM users WHERE id = ${senderId} AND is_active FOR KEY SHARE)`;

/** Whether a message's write failed because its sender was deactivated meanwhile. */
const lostSender = (err: unknown): boolean =>
  sqlState(err) === '23502' && types.isNativeError(err) && /"sender_id"/.test(errorText(err));

/** What a failed write said, from node-postgres's error or Prisma's account of it. */
const errorText = (err: Error): string => {
  const cause = (
    err as { meta?: { driverAdapterError?: { cause?: { originalMessage?: string } } } }
  ).meta?.driverAdapterError?.cause?.originalMessage;
  return `${err.message} ${cause ?? ''}`;
};

/** Runs a message's write, answering as for a deactivated account when its sender lost it. */
async function writingAsSender<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw lostSender(err) ? userDeactivated() : err;
  }
}

/** The message's event, one for every recipient, and the notification decision it owes. */
async function emitMessage(
  events: EventSink,
  prepared: PreparedMessage,
  message: ComposedMessage,
): Promise<void> {
  const { input, channel, content } = prepared;
  const { userIds, flags } = message;
  // The most common flags, and each other recipient's own.
  const groups = [...groupByFlags(userIds, flags)].sort((a, b) => b[1].length - a[1].length);
  // The sender is always a recipient (drawRecipients): at least one group.
  const [commonBits] = at(groups, 0);
  const userFlags: Record<string, string[]> = {};
  for (const [bits, users] of groups.slice(1)) {
    for (const id of users) userFlags[String(id)] = flagNames(bits);
  }
  await events.emit(
    input.realm.id,
    messageEvent({
      message: message.dict,
      flags: flagNames(commonBits),
      rawContent: content,
      userFlags: groups.length > 1 ? userFlags : undefined,
      publicChannel: channel !== null && !isPrivateChannel(channel),
      senderQueueId: input.queueId,
      localId: input.localId,
    }),
    userIds,
  );
  // Who is notified by email or push is decided by a worker, never here (docs/notifications.md),
  // for a message that may notify anyone at all.
  if (message.owesDecision) oweNotificationDecision(events, message.id);
  oweLinkEmbeds(events, {
    id: message.id,
    content,
    sentByBot: input.sender.isBot,
    linksForPreview: prepared.rendered.linksForPreview,
  });
}
