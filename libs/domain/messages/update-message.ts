import { Prisma, type Message, type Stream } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { lockRows } from '../../db/locks';
import type { EventSink } from '../../events/outbox';
import type { RenderedMarkdown } from '../../markdown';
import type { AppContext } from '../../core/context';
import { equalsIgnoringCase } from '../../db/text-match';
import { deleteMessageEvent } from '../../protocol/events/delete-message';
import { claimAttachments } from '../attachments/claim-attachments';
import type { ApiAttachment } from '../attachments/format-attachment';
import { copiesLostByMove, messageAudience } from '../permissions/message-audience';
import type { EditRequest, PropagateMode } from './edit-request';
import { emitUpdateMessage } from './update-message-event';
import { Flag } from './flags';
import { recipientFlags } from './recipient-flags';
import { sendMoveNotices } from './move-notices';
import { oweLinkEmbeds } from '../link-previews/embed-links';
import type { EditHistoryEntry } from './types';
import { at } from '../../core/at';

/** Bits recomputed when content changes; read/starred/collapsed/historical are the user's. */
const CONTENT_BITS =
  Flag.mentioned |
  Flag.stream_wildcard_mentioned |
  Flag.topic_wildcard_mentioned |
  Flag.has_alert_word;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * Zulip's do_update_message: carries out a built edit request inside the transaction that built
 * it (and holds the message locked): rewrites the rows, records edit history, recomputes mention
 * flags, emits `update_message` (and `delete_message` for users who lose access) and posts the
 * move notices.
 */
export async function doUpdateMessage(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  request: EditRequest,
): Promise<{ detachedUploads: ApiAttachment[] }> {
  const { message, newTopic, oldStream, newStream } = request;
  const moving = newTopic !== undefined || newStream !== null;
  const moved = moving ? await messagesToMove(tx, message, request.propagateMode) : [message];
  const movedIds = moved.map((m) => m.id);
  // Who saw the messages before the move: they hear of it even if it takes the messages away.
  const audienceBefore = await messageAudience(tx, movedIds);
  const detachedUploads = await writeContent(tx, events, request);
  if (moving && oldStream) {
    await writeMove(tx, request, { moved, oldStream });
    if (newStream) await dropLostAccess(tx, events, { request, moved, newStream, oldStream });
  }
  await emitUpdateMessage(tx, events, { request, movedIds, audienceBefore });
  await sendMoveNotices(ctx, tx, events, {
    realm: request.realm,
    actor: request.user,
    message,
    moved,
    oldStream,
    newStream,
    newTopic,
    contentEdited: request.content !== undefined,
    changeAll: request.propagateMode === 'change_all',
    notifyOldThread: request.notifyOldThread,
    notifyNewThread: request.notifyNewThread,
  });
  return { detachedUploads };
}

const history = (m: Pick<Message, 'editHistory'>): EditHistoryEntry[] =>
  Array.isArray(m.editHistory) ? (m.editHistory as unknown as EditHistoryEntry[]) : [];

const baseEntry = ({ user, now }: EditRequest): EditHistoryEntry => ({
  user_id: user.id,
  timestamp: seconds(now),
});

/**
 * The new content, if any, with one history entry on the edited message: a move made with the content
 * edit is recorded in the same entry, newest first, as Zulip keeps them.
 */
async function writeContent(
  tx: Tx,
  events: EventSink,
  request: EditRequest,
): Promise<ApiAttachment[]> {
  const { message, content, newTopic, oldStream, newStream, now, user } = request;
  if (!content) return [];
  const entry: EditHistoryEntry = {
    ...baseEntry(request),
    prev_content: message.content,
    prev_rendered_content: message.renderedContent,
  };
  if (newTopic !== undefined)
    Object.assign(entry, { prev_topic: message.subject, topic: newTopic });
  if (newStream && oldStream) {
    Object.assign(entry, { prev_stream: oldStream.id, stream: newStream.id });
  }
  const { rendered } = content;
  await tx.message.update({
    where: { id: message.id },
    data: {
      content: content.text,
      renderedContent: rendered.html,
      hasLink: rendered.hasLink,
      hasImage: rendered.hasImage,
      hasAttachment: rendered.hasAttachment,
      lastEditTime: now,
      editHistory: [entry, ...history(message)] as unknown as Prisma.InputJsonValue,
    },
  });
  await recomputeFlags(tx, message, content.text, rendered);
  oweLinkEmbeds(events, {
    id: message.id,
    content: content.text,
    // Only a message's sender edits its content.
    sentByBot: user.isBot,
    linksForPreview: rendered.linksForPreview,
  });
  return claimAttachments(tx, events, {
    messageId: message.id,
    sender: user,
    renderedContent: rendered.html,
    hadUploadLinks: message.hasAttachment,
  });
}

/** The move of each moved message, each with its history entry. */
async function writeMove(
  tx: Tx,
  request: EditRequest,
  { moved, oldStream }: { moved: Message[]; oldStream: Stream },
): Promise<void> {
  const { message, newTopic, newStream, content } = request;
  // Resolving is not a move: it leaves lastMovedTime, which clients show as "moved".
  const data = moveData(newTopic, newStream, request.resolveOnly ? undefined : request.now);
  for (const m of moved) {
    if (m.id === message.id && content) {
      // History entry already written with the content, the move included.
      await tx.message.update({ where: { id: m.id }, data });
      continue;
    }
    const entry: EditHistoryEntry = { ...baseEntry(request) };
    if (newTopic !== undefined) Object.assign(entry, { prev_topic: m.subject, topic: newTopic });
    if (newStream) Object.assign(entry, { prev_stream: oldStream.id, stream: newStream.id });
    await tx.message.update({
      where: { id: m.id },
      data: { ...data, editHistory: [entry, ...history(m)] as unknown as Prisma.InputJsonValue },
    });
  }
}

function moveData(topic: string | undefined, stream: Stream | null, movedAt: Date | undefined) {
  return {
    ...(topic !== undefined ? { subject: topic } : {}),
    ...(stream ? { recipientId: stream.recipientId as number } : {}),
    ...(movedAt ? { lastMovedTime: movedAt } : {}),
  };
}

/**
 * The messages a move takes: the topic is matched ignoring case, as Zulip identifies topics;
 * `change_later` includes this one.
 */
async function messagesToMove(tx: Tx, message: Message, mode: PropagateMode): Promise<Message[]> {
  if (mode === 'change_one') return [message];
  const inTopic = {
    recipientId: message.recipientId,
    subject: equalsIgnoringCase(message.subject),
    ...(mode === 'change_later' ? { id: { gte: message.id } } : {}),
  };
  const found = await tx.message.findMany({ where: inTopic, select: { id: true } });
  // Each moved message gets a history entry written onto what it held: locked, then read again,
  // so an edit of one of them committed meanwhile is kept, and one moved away meanwhile stays.
  const locked = await lockRows(
    tx,
    'messages',
    found.map((m) => m.id),
  );
  return tx.message.findMany({
    where: { ...inTopic, id: { in: [...locked], ...inTopic.id } },
    orderBy: { id: 'asc' },
  });
}

/** Mention and alert-word bits follow the new content; the user's own bits stay. */
async function recomputeFlags(
  tx: Tx,
  message: Message,
  content: string,
  rendered: RenderedMarkdown,
) {
  const rows = await tx.userMessage.findMany({
    where: { messageId: message.id },
    select: { userId: true },
  });
  const userIds = rows.map((r) => r.userId);
  const bits = await recipientFlags(tx, {
    senderId: message.senderId,
    recipientUserIds: userIds,
    rendered,
    content,
    isPrivate: false,
    senderRead: false,
    topic: message.isChannelMessage
      ? { recipientId: message.recipientId, name: message.subject }
      : undefined,
  });
  // Only the content bits are kept, so `isPrivate` and `senderRead` above (which set other bits)
  // do not matter.
  const contentBits = bits.map((b) => b & CONTENT_BITS);
  await tx.$executeRaw(Prisma.sql`
    UPDATE user_messages um SET flags = (um.flags & ~${CONTENT_BITS}::bigint) | t.f
    FROM unnest(${userIds}::int[], ${contentBits}::bigint[]) AS t(u, f)
    WHERE um.message_id = ${message.id} AND um.user_id = t.u`);
}

/** Messages moved from one channel to another. */
interface ChannelMove {
  request: EditRequest;
  moved: Message[];
  newStream: Stream;
  oldStream: Stream;
}

/**
 * The copies a move takes away (`copiesLostByMove`: into a private channel, from those not
 * subscribed to it) are deleted, and their holders get a `delete_message` instead of the update.
 */
async function dropLostAccess(
  tx: Tx,
  events: EventSink,
  { request, moved, newStream, oldStream }: ChannelMove,
) {
  const ids = moved.map((m) => m.id);
  const users = await copiesLostByMove(tx, { messageIds: ids, channel: newStream });
  if (users.length === 0) return;
  await tx.userMessage.deleteMany({ where: { messageId: { in: ids }, userId: { in: users } } });
  await events.emit(
    request.realm.id,
    deleteMessageEvent({
      message_type: 'stream',
      message_ids: ids,
      stream_id: oldStream.id,
      topic: at(moved, 0).subject,
    }),
    users,
  );
}
