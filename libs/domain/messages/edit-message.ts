import {
  Prisma,
  type Message,
  type Realm,
  type Stream,
  type User,
} from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { lockRows } from '../../db/locks';
import { inTransaction, type EventSink } from '../../events/outbox';
import { badRequest, insufficientPermission } from '../../core/errors';
import { linkifyTopic, renderMarkdown, type RenderedMarkdown } from '../../markdown';
import type { AppContext } from '../../core/context';
import { markdownContextFor } from '../markdown-context';
import { groupsContainingUser } from '../permissions/groups';
import {
  canAccessChannel,
  channelSendRefusal,
  contentEditRefusal,
  moveRefusal,
} from '../permissions/messages';
import { claimAttachments } from '../attachments/claim-attachments';
import type { ApiAttachment } from '../attachments/format-attachment';
import { messageAudience } from './message-audience';
import { accessLockedMessage } from './access';
import { normalizeContent } from './content';
import { Flag, flagNames } from './flags';
import { isMeMessage } from './format-message';
import { groupByFlags, recipientFlags } from './recipient-flags';
import { sendMoveNotices } from './move-notices';
import { normalizeTopic, RESOLVED_TOPIC_PREFIX } from './topic-name';
import type { EditHistoryEntry } from './types';
import { equalsIgnoringCase } from '../../db/text-match';
import { deleteMessageEvent } from '../../protocol/events/delete-message';
import type { EventFields } from '../../protocol/formatter';
import { updateMessageEvent, type UpdateMessageEvent } from '../../protocol/events/update-message';

/**
 * Zulip's `propagate_mode`: which messages of the topic follow a topic or channel move: this one,
 * this one and those after it, or the whole topic.
 */
export const PROPAGATE_MODES = ['change_one', 'change_later', 'change_all'] as const;
export type PropagateMode = (typeof PROPAGATE_MODES)[number];

export interface EditMessageInput {
  user: User;
  realm: Realm;
  messageId: number;
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: PropagateMode;
  sendNotificationToOldThread: boolean;
  sendNotificationToNewThread: boolean;
}

/** Bits recomputed when content changes; read/starred/collapsed/historical are the user's. */
const CONTENT_BITS =
  Flag.mentioned |
  Flag.stream_wildcard_mentioned |
  Flag.topic_wildcard_mentioned |
  Flag.has_alert_word;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Is `b` the resolved or unresolved form of `a` (Zulip's resolve-topic detection)? */
function isResolveToggle(from: string, to: string): boolean {
  const strip = (s: string) =>
    s.startsWith(RESOLVED_TOPIC_PREFIX) ? s.slice(RESOLVED_TOPIC_PREFIX.length) : s;
  return (
    from !== to &&
    strip(from) === strip(to) &&
    from.startsWith(RESOLVED_TOPIC_PREFIX) !== to.startsWith(RESOLVED_TOPIC_PREFIX)
  );
}

/**
 * PATCH /messages/{message_id}: content edits and topic/channel moves (Zulip's
 * update_message_backend + do_update_message). Validates and authorizes everything first, then
 * in one transaction rewrites the rows, records edit history, recomputes mention flags and
 * emits `update_message` (and `delete_message` for users who lose access).
 */
export async function editMessage(
  ctx: AppContext,
  input: EditMessageInput,
): Promise<{ detachedUploads: ApiAttachment[] }> {
  const { user, realm } = input;
  if (input.content === undefined && input.topic === undefined && input.streamId === undefined) {
    throw badRequest('Nothing to change');
  }
  // Zulip refuses a propagate mode on a content-only edit rather than ignoring it.
  if (
    input.propagateMode !== 'change_one' &&
    input.topic === undefined &&
    input.streamId === undefined
  ) {
    throw badRequest('Invalid propagate_mode without topic edit');
  }
  // Rendering reads only the organization's emoji and linkifiers, none of the message: it runs
  // before the transaction, so the message's row is not held locked while it does.
  let newContent: string | undefined;
  let rendered: RenderedMarkdown | undefined;
  if (input.content !== undefined) {
    // Zulip turns an emptied message into "(deleted)" rather than refusing it.
    newContent = input.content.trim() === '' ? '(deleted)' : normalizeContent(input.content);
    rendered = await renderMarkdown(
      newContent,
      await markdownContextFor(ctx.db, ctx.config, realm),
    );
  }

  return inTransaction(ctx, async (tx, events) => {
    // The row locked first, then every check on it: two edits at once take turns, and each
    // writes its history entry onto the other's (Zulip's access_message with lock_message).
    // A message the user cannot read answers like a missing one, so an edit cannot probe for IDs.
    const { message } = await accessLockedMessage(tx, user, input.messageId);
    // One instant for the permission time limits, the history entries and the event.
    const now = new Date();
    if (newContent !== undefined) {
      const refusal = contentEditRefusal({ realm, editor: user, message, now });
      if (refusal) throw badRequest(refusal);
    }

    let oldStream: Stream | null = null;
    if (message.isChannelMessage) {
      oldStream = await tx.stream.findFirst({ where: { recipientId: message.recipientId } });
    }
    let newTopic: string | undefined;
    if (input.topic !== undefined) {
      if (!oldStream) throw badRequest('Direct messages cannot have topics.');
      newTopic = normalizeTopic(input.topic, realm);
      // The same topic is no move (no history entry, no notice); a change of case is a rename.
      if (newTopic === message.subject) newTopic = undefined;
    }
    let newStream: Stream | null = null;
    if (input.streamId !== undefined) {
      if (!oldStream) throw badRequest('Direct messages cannot be moved to channels.');
      if (input.streamId !== oldStream.id) {
        newStream = await tx.stream.findFirst({
          where: { id: input.streamId, realmId: realm.id },
        });
        // A channel the user cannot see answers like a missing one.
        if (!newStream || !(await canAccessChannel(tx, user, newStream))) {
          throw badRequest('Invalid channel ID');
        }
      }
    }
    if (newTopic !== undefined) {
      // Resolving or unresolving (adding or removing the prefix) is governed by
      // can_resolve_topics_group alone, not by the topic-move rules and their time limit; an
      // unset group lets nobody.
      const resolving = isResolveToggle(message.subject, newTopic);
      if (resolving) {
        const groupId = realm.canResolveTopicsGroupId;
        const ok =
          groupId !== null && (await groupsContainingUser(tx, user.id, [groupId])).has(groupId);
        if (!ok) throw badRequest("You don't have permission to resolve topics.");
      } else {
        const refusal = await moveRefusal(tx, {
          realm,
          mover: user,
          message,
          kind: 'topic',
          now,
        });
        if (refusal) throw badRequest(refusal);
      }
    }
    // Moving into a channel needs the right to move and the right to post there.
    if (newStream) {
      const refusal = await moveRefusal(tx, {
        realm,
        mover: user,
        message,
        kind: 'channel',
        now,
      });
      if (refusal) throw badRequest(refusal);
      const sendRefusal = await channelSendRefusal(tx, user, newStream);
      if (sendRefusal) throw insufficientPermission(sendRefusal);
    }
    // Only unchanged fields were sent: success, with nothing written and no event.
    if (newContent === undefined && newTopic === undefined && !newStream) {
      return { detachedUploads: [] };
    }

    let detachedUploads: ApiAttachment[] = [];
    const moved =
      newTopic !== undefined || newStream
        ? await messagesToMove(tx, message, input.propagateMode)
        : [message];
    // Who saw the messages before the move: they hear of it even if it takes the messages away.
    const audienceBefore = await messageAudience(
      tx,
      moved.map((m) => m.id),
    );
    const baseEntry: EditHistoryEntry = { user_id: user.id, timestamp: seconds(now) };

    // One request makes one history entry on the edited message: a move made with the content
    // edit is recorded in the same entry, newest first, as Zulip keeps them.
    if (newContent !== undefined && rendered) {
      const entry: EditHistoryEntry = {
        ...baseEntry,
        prev_content: message.content,
        prev_rendered_content: message.renderedContent,
      };
      if (newTopic !== undefined)
        Object.assign(entry, { prev_topic: message.subject, topic: newTopic });
      if (newStream && oldStream)
        Object.assign(entry, { prev_stream: oldStream.id, stream: newStream.id });
      await tx.message.update({
        where: { id: message.id },
        data: {
          content: newContent,
          renderedContent: rendered.html,
          hasLink: rendered.hasLink,
          hasImage: rendered.hasImage,
          hasAttachment: rendered.hasAttachment,
          lastEditTime: now,
          editHistory: [entry, ...history(message)] as unknown as Prisma.InputJsonValue,
        },
      });
      await recomputeFlags(tx, message, newContent, rendered);
      detachedUploads = await claimAttachments(tx, events, {
        messageId: message.id,
        sender: user,
        renderedContent: rendered.html,
        hadUploadLinks: message.hasAttachment,
      });
    }
    if ((newTopic !== undefined || newStream) && oldStream) {
      // Resolving is not a move: it leaves lastMovedTime, which clients show as "moved".
      const resolveOnly =
        newTopic !== undefined && !newStream && isResolveToggle(message.subject, newTopic);
      for (const m of moved) {
        if (m.id === message.id && newContent !== undefined) {
          // History entry already written above with the move included; apply the move itself.
          await tx.message.update({
            where: { id: m.id },
            data: moveData(newTopic, newStream, resolveOnly ? undefined : now),
          });
          continue;
        }
        const entry: EditHistoryEntry = { ...baseEntry };
        if (newTopic !== undefined)
          Object.assign(entry, { prev_topic: m.subject, topic: newTopic });
        if (newStream) Object.assign(entry, { prev_stream: oldStream.id, stream: newStream.id });
        await tx.message.update({
          where: { id: m.id },
          data: {
            ...moveData(newTopic, newStream, resolveOnly ? undefined : now),
            editHistory: [entry, ...history(m)] as unknown as Prisma.InputJsonValue,
          },
        });
      }
      if (newStream) await dropLostAccess(tx, events, { realm, moved, newStream, oldStream });
    }
    await emitUpdate(tx, events, {
      realm,
      user,
      message,
      movedIds: moved.map((m) => m.id),
      audienceBefore,
      now,
      newContent,
      rendered,
      newTopic,
      oldStream,
      newStream,
      propagateMode: input.propagateMode,
    });
    await sendMoveNotices(ctx, tx, events, {
      realm,
      actor: user,
      message,
      moved,
      oldStream,
      newStream,
      newTopic,
      contentEdited: newContent !== undefined,
      changeAll: input.propagateMode === 'change_all',
      notifyOldThread: input.sendNotificationToOldThread,
      notifyNewThread: input.sendNotificationToNewThread,
    });
    return { detachedUploads };
  });
}

const history = (m: Pick<Message, 'editHistory'>): EditHistoryEntry[] =>
  Array.isArray(m.editHistory) ? (m.editHistory as unknown as EditHistoryEntry[]) : [];

function moveData(topic: string | undefined, stream: Stream | null, movedAt: Date | undefined) {
  return {
    ...(topic !== undefined ? { subject: topic } : {}),
    ...(stream ? { recipientId: stream.recipientId as number } : {}),
    ...(movedAt ? { lastMovedTime: movedAt } : {}),
  };
}

/** The topic is matched ignoring case, as Zulip identifies topics; `change_later` includes this one. */
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
  realm: Pick<Realm, 'id'>;
  moved: Message[];
  newStream: Stream;
  oldStream: Stream;
}

/**
 * Moving to a private channel: users not subscribed to it lose their copies and get a
 * `delete_message` instead of the update. A public channel's history is readable by everyone,
 * so there the copies stay.
 */
async function dropLostAccess(
  tx: Tx,
  events: EventSink,
  { realm, moved, newStream, oldStream }: ChannelMove,
) {
  const ids = moved.map((m) => m.id);
  const lost = await tx.$queryRaw<{ user_id: number }[]>(Prisma.sql`
    DELETE FROM user_messages um
    WHERE um.message_id = ANY(${ids}::int[]) AND NOT EXISTS (
      SELECT 1 FROM subscriptions s WHERE s.recipient_id = ${newStream.recipientId}
      AND s.user_id = um.user_id AND s.active)
    AND ${newStream.inviteOnly}
    RETURNING um.user_id`);
  const users = [...new Set(lost.map((l) => l.user_id))];
  if (users.length) {
    await events.emit(
      realm.id,
      deleteMessageEvent({
        message_type: 'stream',
        message_ids: ids,
        stream_id: oldStream.id,
        topic: moved[0].subject,
      }),
      users,
    );
  }
}

interface UpdateEventInput {
  realm: Realm;
  user: User;
  message: Message;
  movedIds: number[];
  audienceBefore: number[];
  now: Date;
  newContent?: string;
  rendered?: RenderedMarkdown;
  newTopic?: string;
  oldStream: Stream | null;
  newStream: Stream | null;
  propagateMode: PropagateMode;
}

/**
 * Zulip's `update_message` event: `stream_id`/`stream_name` name the channel the messages were in,
 * `new_stream_id` where they went, and `topic_links` are recomputed for the new topic.
 */
async function emitUpdate(tx: Tx, events: EventSink, e: UpdateEventInput) {
  const event: EventFields<Omit<UpdateMessageEvent, 'flags'>> = {
    user_id: e.user.id,
    edit_timestamp: seconds(e.now),
    message_id: e.message.id,
    message_ids: [...e.movedIds].sort((a, b) => a - b),
    rendering_only: false,
  };
  if (e.oldStream) {
    event.stream_id = e.oldStream.id;
    event.stream_name = e.oldStream.name;
  }
  if (e.newContent !== undefined && e.rendered) {
    Object.assign(event, {
      orig_content: e.message.content,
      orig_rendered_content: e.message.renderedContent,
      content: e.newContent,
      rendered_content: e.rendered.html,
      is_me_message: isMeMessage(e.newContent),
    });
  }
  if (e.newTopic !== undefined || e.newStream) {
    const linkifiers = await tx.realmFilter.findMany({
      where: { realmId: e.realm.id },
      orderBy: { order: 'asc' },
    });
    const topic = e.newTopic ?? e.message.subject;
    Object.assign(event, {
      propagate_mode: e.propagateMode,
      orig_subject: e.message.subject,
      subject: topic,
      topic_links: linkifyTopic(
        topic,
        linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, urlTemplate: l.urlTemplate })),
      ),
    });
    if (e.newStream) event.new_stream_id = e.newStream.id;
  }
  // Each user's event carries their own flags for the edited message.
  const audience = [...new Set([...e.audienceBefore, ...(await messageAudience(tx, e.movedIds))])];
  const rows = await tx.userMessage.findMany({
    where: { messageId: e.message.id, userId: { in: audience } },
    select: { userId: true, flags: true },
  });
  const flagsByUser = new Map(rows.map((r) => [r.userId, Number(r.flags)]));
  // Those who lost their copy in a private channel got `delete_message` instead; anyone else
  // without a row reads the message from history, with historical flags.
  const stillSees = audience.filter((id) => flagsByUser.has(id) || !e.newStream?.inviteOnly);
  const bits = stillSees.map((id) => flagsByUser.get(id) ?? Flag.read | Flag.historical);
  for (const [flagBits, users] of groupByFlags(stillSees, bits)) {
    await events.emit(
      e.realm.id,
      updateMessageEvent({ ...event, flags: flagNames(flagBits) }),
      users,
    );
  }
}
