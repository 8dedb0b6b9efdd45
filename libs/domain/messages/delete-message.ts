import { Prisma, type Message, type Realm, type User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { lockRow } from '../../db/locks';
import { inTransaction, type EventSink } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { messageAudience } from '../permissions/message-audience';
import { accessLockedMessage } from './access';
import { Flag } from './flags';
import { writePushRemovals } from '../notifications/enqueue-notifications';
import { deleteMessageEvent } from '../../protocol/events/delete-message';
import { streamEvent } from '../../protocol/events/stream';
import { channelAudienceIds } from '../permissions/channels';

type DeletedMessage = Pick<Message, 'id' | 'recipientId' | 'subject' | 'isChannelMessage'>;

/**
 * Deletes messages of one conversation (one channel topic, or one direct conversation) inside
 * the caller's transaction, keeps the channel's first message current, and tells everyone who
 * could see them with one bulk `delete_message` event (Zulip's do_delete_messages).
 */
export async function deleteMessagesInTransaction(
  tx: Tx,
  events: EventSink,
  realmId: number,
  messages: DeletedMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  const ids = messages.map((m) => m.id).sort((a, b) => a - b);
  const [first] = messages;
  const audience = await messageAudience(tx, ids);
  const channel = first.isChannelMessage
    ? await tx.stream.findFirst({ where: { recipientId: first.recipientId }, select: { id: true } })
    : null;
  // The channel's first_message_id is read and written back below: locked, then read.
  if (channel) await lockRow(tx, 'streams', channel.id);
  const stream = channel ? await tx.stream.findUnique({ where: { id: channel.id } }) : null;
  // Notifications of deleted messages still on someone's phone are cleared (a job each user).
  const pushed = await tx.$queryRaw<{ user_id: number; message_ids: number[] }[]>(Prisma.sql`
    SELECT user_id, array_agg(message_id ORDER BY message_id) AS message_ids FROM user_messages
    WHERE message_id = ANY(${ids}::int[]) AND (flags & ${Flag.active_mobile_push_notification}) <> 0
    GROUP BY user_id`);
  await writePushRemovals(
    tx,
    pushed.map((p) => ({ userId: p.user_id, messageIds: p.message_ids })),
  );
  await tx.message.deleteMany({ where: { id: { in: ids } } });
  if (stream && stream.firstMessageId !== null && ids.includes(stream.firstMessageId)) {
    const next = await tx.message.findFirst({
      where: { recipientId: first.recipientId },
      orderBy: { id: 'asc' },
      select: { id: true },
    });
    await tx.stream.update({
      where: { id: stream.id },
      data: { firstMessageId: next?.id ?? null },
    });
    // Clients keep first_message_id from register; only this event tells them it moved on.
    await events.emit(
      realmId,
      streamEvent({
        op: 'update',
        stream_id: stream.id,
        name: stream.name,
        property: 'first_message_id',
        value: next?.id ?? null,
      }),
      [...(await channelAudienceIds(tx, realmId, stream))],
    );
  }
  await events.emit(
    realmId,
    deleteMessageEvent(
      stream
        ? { message_type: 'stream', message_ids: ids, stream_id: stream.id, topic: first.subject }
        : { message_type: 'private', message_ids: ids },
    ),
    audience,
  );
}

/** DELETE /messages/{message_id} (Zulip's delete_message_backend). */
export async function deleteMessage(
  ctx: AppContext,
  input: { user: User; realm: Realm; messageId: number },
): Promise<void> {
  await inTransaction(ctx, async (tx, events) => {
    // Locked, then checked: of two deletes at once, the second finds no message, as Zulip's
    // access_message(..., lock_message=True) has it.
    const { message } = await accessLockedMessage(tx, input.user, input.messageId, 'FOR UPDATE');
    await requireAccess(tx, {
      auth: { user: input.user, realm: input.realm },
      permission: Permission.MessageDelete,
      ids: [message.id],
    });
    await deleteMessagesInTransaction(tx, events, input.realm.id, [message]);
  });
}
