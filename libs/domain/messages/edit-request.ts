import type { Message, Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import type { RenderedMarkdown } from '../../markdown';
import { Permission, requireAccess } from '../permissions/access';
import { normalizeTopic, RESOLVED_TOPIC_PREFIX } from './topic-name';

/**
 * Zulip's `propagate_mode`: which messages of the topic follow a topic or channel move: this one,
 * this one and those after it, or the whole topic.
 */
export const PROPAGATE_MODES = ['change_one', 'change_later', 'change_all'] as const;
export type PropagateMode = (typeof PROPAGATE_MODES)[number];

/** What a client asked of PATCH /messages/{message_id}. */
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

/** New content, normalized and rendered before the transaction. */
export interface NewContent {
  text: string;
  rendered: RenderedMarkdown;
}

/**
 * An edit with every check done and nothing written (Zulip's MessageEditRequest): what
 * `doUpdateMessage` carries out. At least one of content, topic and channel changes.
 */
export interface EditRequest {
  user: User;
  realm: Realm;
  /** The edited message, locked by the transaction that built the request. */
  message: Message;
  /** One instant for the time limits, the history entries and the event. */
  now: Date;
  content?: NewContent;
  newTopic?: string;
  /** A topic change that only adds or removes the resolved prefix: no move. */
  resolveOnly: boolean;
  oldStream: Stream | null;
  newStream: Stream | null;
  propagateMode: PropagateMode;
  notifyOldThread: boolean;
  notifyNewThread: boolean;
}

/** Is `to` the resolved or unresolved form of `from` (Zulip's resolve-topic detection)? */
export function isResolveToggle(from: string, to: string): boolean {
  const strip = (s: string) =>
    s.startsWith(RESOLVED_TOPIC_PREFIX) ? s.slice(RESOLVED_TOPIC_PREFIX.length) : s;
  return (
    from !== to &&
    strip(from) === strip(to) &&
    from.startsWith(RESOLVED_TOPIC_PREFIX) !== to.startsWith(RESOLVED_TOPIC_PREFIX)
  );
}

/** The checks that need no database: something to change, and a propagate mode that fits. */
export function checkEditInput(input: EditMessageInput): void {
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
}

/**
 * Zulip's build_message_edit_request with check_update_message's permission checks, on the
 * message the caller's transaction holds locked (and has checked the user may read): where the
 * message goes, and whether the user may take it there. Writes nothing. Null when only unchanged
 * fields were sent: success, with nothing to write and no event.
 */
export async function buildEditRequest(
  tx: Tx,
  { input, message, content }: { input: EditMessageInput; message: Message; content?: NewContent },
): Promise<EditRequest | null> {
  const { user, realm } = input;
  const now = new Date();
  const auth = { user, realm };
  if (content) {
    await requireAccess(tx, { auth, permission: Permission.MessageEdit, ids: [message.id], now });
  }
  const oldStream = message.isChannelMessage
    ? await tx.stream.findFirst({ where: { recipientId: message.recipientId } })
    : null;
  const newTopic = targetTopic(input, message, oldStream);
  const newStream = await targetChannel(tx, input, oldStream);
  const resolveOnly =
    newTopic !== undefined && !newStream && isResolveToggle(message.subject, newTopic);
  if (newTopic !== undefined) {
    const resolving = isResolveToggle(message.subject, newTopic);
    const permission = resolving ? Permission.MessageResolveTopic : Permission.MessageMoveTopic;
    await requireAccess(tx, { auth, permission, ids: [message.id], now });
  }
  // Moving into a channel needs the right to move and the right to post there.
  if (newStream) {
    const permission = Permission.MessageMoveChannel;
    await requireAccess(tx, { auth, permission, ids: [message.id], now });
    await requireAccess(tx, {
      auth: { user },
      permission: Permission.ChannelSend,
      ids: [newStream.id],
      channels: [newStream],
    });
  }
  if (!content && newTopic === undefined && !newStream) return null;
  return {
    user,
    realm,
    message,
    now,
    content,
    newTopic,
    resolveOnly,
    oldStream,
    newStream,
    propagateMode: input.propagateMode,
    notifyOldThread: input.sendNotificationToOldThread,
    notifyNewThread: input.sendNotificationToNewThread,
  };
}

/** The new topic, or undefined when the topic stays (a change of case is a rename). */
function targetTopic(
  input: EditMessageInput,
  message: Message,
  oldStream: Stream | null,
): string | undefined {
  if (input.topic === undefined) return undefined;
  if (!oldStream) throw badRequest('Direct messages cannot have topics.');
  const topic = normalizeTopic(input.topic, input.realm);
  // The same topic is no move (no history entry, no notice).
  return topic === message.subject ? undefined : topic;
}

/** The channel the message moves to, or null when it stays; one the user cannot see is missing. */
async function targetChannel(
  tx: Tx,
  input: EditMessageInput,
  oldStream: Stream | null,
): Promise<Stream | null> {
  if (input.streamId === undefined) return null;
  if (!oldStream) throw badRequest('Direct messages cannot be moved to channels.');
  if (input.streamId === oldStream.id) return null;
  const stream = await tx.stream.findFirst({
    where: { id: input.streamId, realmId: input.realm.id },
  });
  if (!stream) throw badRequest('Invalid channel ID');
  await requireAccess(tx, {
    auth: { user: input.user },
    permission: Permission.ChannelTopics,
    ids: [stream.id],
  });
  return stream;
}
