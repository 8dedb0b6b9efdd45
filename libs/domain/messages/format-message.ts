import type { Message, Realm, Submessage, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { linkifyTopic, type Linkifier } from '../../markdown';
import { canSeeDeliveryEmail } from '../permissions/email-visibility';
import { RecipientType } from '../recipients';
import { avatarUrlFor } from '../users/avatar';
import { flagNames } from './flags';
import { displayTopic } from './topic-name';
import type { ApiMessage, ApiReaction, DisplayRecipientUser, EditHistoryEntry } from './types';

type Reader = Db | Tx;

export interface FormatOptions {
  viewer: { id: number; role: number };
  realm: Pick<Realm, 'id' | 'stringId' | 'messageEditHistoryVisibilityPolicy' | 'allowEditHistory'>;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** The client declared the `empty_topic_name` capability (or asked for `allow_empty_topic_name`). */
  allowEmptyTopicName: boolean;
  /** Flag bits per message id; messages absent here get no `flags` field. */
  flags?: Map<number, number>;
  /** The messages were written in this transaction: they have no reactions or submessages yet. */
  newlyWritten?: boolean;
  /** Rows the caller holds already (a message it just wrote), which are then not read again. */
  known?: KnownRows;
}

/** The user fields a message dict shows of its sender and direct-message members. */
type FormatUser = Pick<
  User,
  | 'id'
  | 'realmId'
  | 'email'
  | 'deliveryEmail'
  | 'fullName'
  | 'isMirrorDummy'
  | 'avatarSource'
  | 'avatarVersion'
  | 'emailAddressVisibility'
>;

export interface KnownRows {
  users: FormatUser[];
  /** Channel recipients, each with its channel's id and name. */
  channels: { recipientId: number; channelId: number; name: string }[];
  /** The organization's linkifiers, in order. */
  linkifiers: Linkifier[];
}

export type MessageRow = Pick<
  Message,
  | 'id'
  | 'senderId'
  | 'recipientId'
  | 'subject'
  | 'content'
  | 'renderedContent'
  | 'dateSent'
  | 'sendingClientName'
  | 'lastEditTime'
  | 'lastMovedTime'
  | 'editHistory'
>;

export const isMeMessage = (content: string) => /^\/me /.test(content) && !content.includes('\n');

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Edit history as the viewer may see it (realm message_edit_history_visibility_policy). */
function visibleHistory(
  history: EditHistoryEntry[],
  realm: FormatOptions['realm'],
): EditHistoryEntry[] | undefined {
  const policy = realm.allowEditHistory ? realm.messageEditHistoryVisibilityPolicy : 3;
  if (policy === 3) return undefined;
  if (policy === 1) return history;
  const moves = history
    .filter((e) => e.prev_topic !== undefined || e.prev_stream !== undefined)
    .map(({ prev_content: _c, prev_rendered_content: _r, ...rest }) => rest);
  return moves.length ? moves : undefined;
}

/** A message's recipient row, with its channel's id and name when it is a channel. */
interface FormatRecipient {
  id: number;
  type: number;
  typeId: number;
  stream: { id: number; name: string } | null;
}

/** What one batch of messages refers to, read once for all of them. */
interface BatchRows {
  recipientById: Map<number, FormatRecipient>;
  /** Direct-message group recipients' members. */
  membersByRecipient: Map<number, number[]>;
  userById: Map<number, FormatUser>;
  reactionsByMessage: Map<number, ApiReaction[]>;
  submessages: Submessage[];
  linkifiers: Linkifier[];
}

/**
 * Builds Zulip message dicts for many messages with a fixed number of queries: senders,
 * recipients (channel names, direct-message members), reactions, submessages and linkifiers
 * are each loaded once for the whole batch.
 */
export async function formatMessages(
  db: Reader,
  rows: MessageRow[],
  options: FormatOptions,
): Promise<ApiMessage[]> {
  if (rows.length === 0) return [];
  const batch = await readBatch(db, rows, options);
  return rows.map((row) => formatMessage(row, batch, options));
}

async function readBatch(
  db: Reader,
  rows: MessageRow[],
  options: FormatOptions,
): Promise<BatchRows> {
  const ids = rows.map((r) => r.id);
  const known = options.known;
  const [recipients, reactions, submessages, linkifiers] = await Promise.all([
    readRecipients(db, rows, known),
    options.newlyWritten
      ? []
      : db.reaction.findMany({ where: { messageId: { in: ids } }, orderBy: { id: 'asc' } }),
    options.newlyWritten
      ? []
      : db.submessage.findMany({ where: { messageId: { in: ids } }, orderBy: { id: 'asc' } }),
    known?.linkifiers ??
      db.realmFilter.findMany({ where: { realmId: options.realm.id }, orderBy: { order: 'asc' } }),
  ]);
  const membersByRecipient = await readGroupMembers(db, recipients);
  const dmUserIds = new Set<number>([...membersByRecipient.values()].flat());
  for (const r of recipients) if (r.type === RecipientType.PERSONAL) dmUserIds.add(r.typeId);
  const userIds = new Set([...rows.map((r) => r.senderId), ...dmUserIds]);
  const reactionsByMessage = new Map<number, ApiReaction[]>();
  for (const r of reactions) {
    const list = reactionsByMessage.get(r.messageId) ?? [];
    list.push({
      emoji_name: r.emojiName,
      emoji_code: r.emojiCode,
      reaction_type: r.reactionType,
      user_id: r.userId,
    });
    reactionsByMessage.set(r.messageId, list);
  }
  return {
    recipientById: new Map(recipients.map((r) => [r.id, r])),
    membersByRecipient,
    userById: await readUsers(db, [...userIds], known),
    reactionsByMessage,
    submessages,
    linkifiers: linkifiers.map((l) => ({
      id: l.id,
      pattern: l.pattern,
      urlTemplate: l.urlTemplate,
    })),
  };
}

/** The messages' recipients: those the caller holds, and the others read. */
async function readRecipients(
  db: Reader,
  rows: MessageRow[],
  known: KnownRows | undefined,
): Promise<FormatRecipient[]> {
  const knownRecipients = (known?.channels ?? []).map((c) => ({
    id: c.recipientId,
    type: RecipientType.STREAM,
    typeId: c.channelId,
    stream: { id: c.channelId, name: c.name },
  }));
  const knownRecipientIds = new Set(knownRecipients.map((r) => r.id));
  const recipientIds = [...new Set(rows.map((r) => r.recipientId))].filter(
    (id) => !knownRecipientIds.has(id),
  );
  const readRecipients = recipientIds.length
    ? await db.recipient.findMany({
        where: { id: { in: recipientIds } },
        select: {
          id: true,
          type: true,
          typeId: true,
          stream: { select: { id: true, name: true } },
        },
      })
    : [];
  return [...knownRecipients, ...readRecipients];
}

/** The members of the direct-message groups among the recipients, by recipient. */
async function readGroupMembers(
  db: Reader,
  recipients: FormatRecipient[],
): Promise<Map<number, number[]>> {
  const groupRecipientIds = recipients
    .filter((r) => r.type === RecipientType.DIRECT_MESSAGE_GROUP)
    .map((r) => r.id);
  const groupMembers = groupRecipientIds.length
    ? await db.subscription.findMany({
        where: { recipientId: { in: groupRecipientIds } },
        select: { userId: true, recipientId: true },
      })
    : [];
  const membersByRecipient = new Map<number, number[]>();
  for (const m of groupMembers) {
    membersByRecipient.set(m.recipientId, [
      ...(membersByRecipient.get(m.recipientId) ?? []),
      m.userId,
    ]);
  }
  return membersByRecipient;
}

/** The senders and direct-message members: those the caller holds, and the others read. */
async function readUsers(
  db: Reader,
  ids: number[],
  known: KnownRows | undefined,
): Promise<Map<number, FormatUser>> {
  const knownUsers = known?.users ?? [];
  const knownUserIds = new Set(knownUsers.map((u) => u.id));
  const userIds = ids.filter((id) => !knownUserIds.has(id));
  const readUsers = userIds.length
    ? await db.user.findMany({
        where: { id: { in: userIds } },
        select: {
          id: true,
          realmId: true,
          email: true,
          deliveryEmail: true,
          fullName: true,
          isMirrorDummy: true,
          avatarSource: true,
          avatarVersion: true,
          emailAddressVisibility: true,
        },
      })
    : [];
  return new Map([...knownUsers, ...readUsers].map((u) => [u.id, u]));
}

function displayUsers(batch: BatchRows, ids: number[]): DisplayRecipientUser[] {
  return [...new Set(ids)]
    .sort((a, b) => a - b)
    .flatMap((id) => {
      const u = batch.userById.get(id);
      return u
        ? [{ id: u.id, email: u.email, full_name: u.fullName, is_mirror_dummy: u.isMirrorDummy }]
        : [];
    });
}

function displayRecipient(
  batch: BatchRows,
  recipient: FormatRecipient,
): ApiMessage['display_recipient'] {
  if (recipient.type === RecipientType.STREAM) return recipient.stream?.name ?? '';
  if (recipient.type === RecipientType.PERSONAL) return displayUsers(batch, [recipient.typeId]);
  return displayUsers(batch, batch.membersByRecipient.get(recipient.id) ?? []);
}

function formatMessage(row: MessageRow, batch: BatchRows, options: FormatOptions): ApiMessage {
  const sender = batch.userById.get(row.senderId);
  const recipient = batch.recipientById.get(row.recipientId);
  if (!sender || !recipient) throw new Error(`message ${row.id} references missing rows`);
  const isChannel = recipient.type === RecipientType.STREAM;
  const topic = isChannel
    ? displayTopic(row.subject, options.realm, options.allowEmptyTopicName)
    : '';
  const message: ApiMessage = {
    id: row.id,
    type: isChannel ? 'stream' : 'private',
    subject: topic,
    content: options.applyMarkdown ? row.renderedContent : row.content,
    content_type: options.applyMarkdown ? 'text/html' : 'text/x-markdown',
    timestamp: seconds(row.dateSent),
    client: row.sendingClientName,
    avatar_url: avatarUrlFor(
      sender,
      options.clientGravatar,
      canSeeDeliveryEmail(options.viewer, sender),
    ),
    display_recipient: displayRecipient(batch, recipient),
    recipient_id: row.recipientId,
    sender_id: sender.id,
    sender_email: sender.email,
    sender_full_name: sender.fullName,
    sender_realm_str: options.realm.stringId,
    is_me_message: isMeMessage(row.content),
    reactions: batch.reactionsByMessage.get(row.id) ?? [],
    submessages: batch.submessages
      .filter((s) => s.messageId === row.id)
      .map((s) => ({
        msg_type: s.msgType,
        content: s.content,
        message_id: s.messageId,
        sender_id: s.senderId,
        id: s.id,
      })),
    topic_links: isChannel ? linkifyTopic(row.subject, batch.linkifiers) : [],
  };
  if (isChannel && recipient.stream) message.stream_id = recipient.stream.id;
  if (row.lastEditTime) message.last_edit_timestamp = seconds(row.lastEditTime);
  if (row.lastMovedTime) message.last_moved_timestamp = seconds(row.lastMovedTime);
  const history = Array.isArray(row.editHistory)
    ? visibleHistory(row.editHistory as unknown as EditHistoryEntry[], options.realm)
    : undefined;
  if (history && history.length) message.edit_history = history;
  const bits = options.flags?.get(row.id);
  if (bits !== undefined) message.flags = flagNames(bits);
  return message;
}
