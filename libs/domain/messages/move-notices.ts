import type { Message, Prisma, Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { hashEncode, streamNarrowUrl } from '../../markdown/mentions';
import { findNotificationBot } from '../bots/notification-bot';
import { sendChannelNotice, silentMention } from '../channels/channel-notices';
import type { AppContext } from '../../core/context';
import { checkAccess, Permission } from '../permissions/access';
import { realmUrl } from '../realms/realm-url';
import { deleteMessagesInTransaction } from './delete-message';
import { RESOLVED_TOPIC_PREFIX } from './topic-name';
import { equalsIgnoringCase } from '../../db/text-match';

/** Zulip's RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS (production default). */
export const RESOLVE_UNDO_GRACE_SECONDS = 60;

const RESOLVE_NOTICE = /^@_\*\*.+\|\d+\*\* has marked this topic as (?:un)?resolved\.$/;

export interface MoveNoticeInput {
  realm: Realm;
  actor: User;
  /** The edited message as it was before the edit. */
  message: Message;
  /** Every message the edit moved, as they were before it. */
  moved: Message[];
  oldStream: Stream | null;
  newStream: Stream | null;
  newTopic: string | undefined;
  contentEdited: boolean;
  changeAll: boolean;
  /** `send_notification_to_old_thread` (default false since FL 152). */
  notifyOldThread: boolean;
  /** `send_notification_to_new_thread` (default true). */
  notifyNewThread: boolean;
}

/**
 * Zulip's resolve-topic detection: adding the prefix to the unchanged name resolves, removing
 * it (Python's lstrip of "✔ ") unresolves; anything else is an ordinary rename.
 */
export function resolveChange(from: string, to: string): 'resolved' | 'unresolved' | null {
  const p = RESOLVED_TOPIC_PREFIX;
  if (to.startsWith(p) && !from.startsWith(p) && to.slice(p.length) === from) return 'resolved';
  if (from.startsWith(p) && !to.startsWith(p) && from.replace(/^[✔ ]+/u, '') === to) {
    return 'unresolved';
  }
  return null;
}

/**
 * The notification bot's messages after a topic or channel move, in the editing transaction
 * (Zulip 10's do_update_message tail): the resolve/unresolve notice for a pure topic rename that
 * toggles the prefix, then the breadcrumbs in the new location and the old one as requested.
 * They mention the actor silently and address nobody, so no outgoing webhook fires for them.
 */
export async function sendMoveNotices(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  input: MoveNoticeInput,
): Promise<void> {
  const { oldStream, newStream, newTopic, actor } = input;
  if (!oldStream || (newTopic === undefined && !newStream)) return;
  const oldTopic = input.message.subject;
  const target = { stream: newStream ?? oldStream, topic: newTopic ?? oldTopic };
  const change = newTopic !== undefined ? resolveChange(oldTopic, newTopic) : null;
  const movedIds = input.moved.map((m) => m.id);
  const movedAll =
    input.changeAll ||
    !(await hasVisibleMessages(tx, {
      user: actor,
      stream: oldStream,
      topic: oldTopic,
      excluded: [],
    }));

  if (change && !newStream && !input.contentEdited) {
    await sendResolveNotice(ctx, tx, events, {
      input,
      stream: oldStream,
      topic: target.topic,
      change,
    });
  }

  const count = input.moved.length;
  const who = silentMention(actor);
  const notices: { stream: Stream; topic: string; content: string }[] = [];
  // A resolve or unresolve is announced by its own notice, not as a move.
  if (input.notifyNewThread && (newStream || !change)) {
    const from = `#**${oldStream.name}>${oldTopic}**`;
    const preexisting = await hasVisibleMessages(tx, {
      user: actor,
      stream: target.stream,
      topic: target.topic,
      excluded: movedIds,
    });
    let content: string;
    if (!preexisting && movedAll) content = `This topic was moved here from ${from} by ${who}.`;
    else if (count === 1) {
      const link = messageLink(ctx, {
        realm: input.realm,
        stream: target.stream,
        topic: target.topic,
        messageId: input.message.id,
      });
      content = `[A message](${link}) was moved here from ${from} by ${who}.`;
    } else content = `${count} messages were moved here from ${from} by ${who}.`;
    notices.push({ ...target, content });
  }
  if (input.notifyOldThread) {
    const to = `#**${target.stream.name}>${target.topic}**`;
    const content = movedAll
      ? `This topic was moved to ${to} by ${who}.`
      : count === 1
        ? `A message was moved from this topic to ${to} by ${who}.`
        : `${count} messages were moved from this topic to ${to} by ${who}.`;
    notices.push({ stream: oldStream, topic: oldTopic, content });
  }
  for (const notice of notices) {
    await sendChannelNotice(ctx, tx, events, {
      realm: input.realm,
      channelId: notice.stream.id,
      topic: notice.topic,
      content: notice.content,
    });
  }
}

/** A topic renamed to or from its resolved form, in its channel, after the move `input`. */
interface ResolveNotice {
  input: MoveNoticeInput;
  stream: Stream;
  topic: string;
  change: 'resolved' | 'unresolved';
}

/**
 * "@_**Name|id** has marked this topic as resolved." (or unresolved) in the renamed topic,
 * unread only for the people who wrote or reacted to the moved messages. Undoing within the
 * grace period deletes the previous notice instead of adding another.
 */
async function sendResolveNotice(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  { input, stream, topic, change }: ResolveNotice,
): Promise<void> {
  const bot = await findNotificationBot(tx, input.realm.id);
  if (!bot) return;
  const last = await tx.message.findFirst({
    where: {
      recipientId: stream.recipientId as number,
      subject: equalsIgnoringCase(topic),
    },
    orderBy: { id: 'desc' },
  });
  const graceStart = Date.now() - RESOLVE_UNDO_GRACE_SECONDS * 1000;
  if (
    last &&
    last.senderId === bot.id &&
    RESOLVE_NOTICE.test(last.content) &&
    last.dateSent.getTime() > graceStart
  ) {
    await deleteMessagesInTransaction(tx, events, input.realm.id, [last]);
    return;
  }
  const reactors = await tx.reaction.findMany({
    where: { messageId: { in: input.moved.map((m) => m.id) } },
    select: { userId: true },
  });
  const participants = new Set([
    ...input.moved.map((m) => m.senderId),
    ...reactors.map((r) => r.userId),
  ]);
  const subscribers = await tx.subscription.findMany({
    where: { recipientId: stream.recipientId as number, active: true },
    select: { userId: true },
  });
  await sendChannelNotice(ctx, tx, events, {
    realm: input.realm,
    channelId: stream.id,
    topic,
    content: `${silentMention(input.actor)} has marked this topic as ${change}.`,
    readBy: subscribers.map((s) => s.userId).filter((id) => !participants.has(id)),
  });
}

/** Which messages of a topic (all but `excluded`) to look for, with whose access. */
interface VisibleMessagesQuery {
  user: User;
  stream: Stream;
  topic: string;
  excluded: number[];
}

/**
 * Does the topic hold messages (other than `excluded`) that the user can see? Zulip asks with
 * the actor's own access, so a notice never hints at history they cannot read.
 */
async function hasVisibleMessages(
  tx: Tx,
  { user, stream, topic, excluded }: VisibleMessagesQuery,
): Promise<boolean> {
  const where: Prisma.MessageWhereInput = {
    recipientId: stream.recipientId as number,
    subject: equalsIgnoringCase(topic),
    id: { notIn: excluded },
  };
  const readable = await checkAccess(tx, {
    auth: { user },
    permission: Permission.ChannelHistory,
    ids: [stream.id],
  });
  if (!readable.has(stream.id)) {
    where.userMessages = { some: { userId: user.id } };
  }
  return (await tx.message.findFirst({ where, select: { id: true } })) !== null;
}

/** A message in a channel's topic. */
interface MessagePlace {
  realm: Realm;
  stream: Stream;
  topic: string;
  messageId: number;
}

/** Zulip's near_stream_message_url: the moved message in its new conversation. */
function messageLink(ctx: AppContext, { realm, stream, topic, messageId }: MessagePlace): string {
  const base = realmUrl(realm.stringId, ctx.config);
  return `${base}${streamNarrowUrl(stream)}/topic/${hashEncode(topic)}/near/${messageId}`;
}
