import { Prisma, type Message, type Realm, type User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { lockRow } from '../../db/locks';
import { inTransaction, type EventSink } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { audienceByConversation, conversationKey } from '../permissions/message-audience';
import { accessLockedMessage } from './access';
import { Flag } from './flags';
import { writePushRemovals } from '../notifications/enqueue-notifications';
import { deleteMessageEvent } from '../../protocol/events/delete-message';
import { streamEvent } from '../../protocol/events/stream';
import { channelAudienceIds } from '../permissions/channels';
import { at } from '../../core/at';

type DeletedMessage = Pick<Message, 'id' | 'recipientId' | 'subject' | 'isChannelMessage'>;

/**
 * Deletes messages, of one conversation (a channel topic, or a direct conversation) or of many,
 * inside the caller's transaction, keeps each channel's first message current, and tells
 * everyone who could see them with one bulk `delete_message` event per conversation (Zulip's
 * do_delete_messages). A fixed number of statements whatever the number of conversations:
 * retention deletes a thousand messages of hundreds of topics in one batch.
 */
export async function deleteMessagesInTransaction(
  tx: Tx,
  events: EventSink,
  realmId: number,
  messages: DeletedMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  const ids = messages.map((m) => m.id).sort((a, b) => a - b);
  const audiences = await audienceByConversation(tx, messages);
  const channelRecipients = [
    ...new Set(messages.filter((m) => m.isChannelMessage).map((m) => m.recipientId)),
  ];
  const channels = channelRecipients.length
    ? await tx.stream.findMany({
        where: { recipientId: { in: channelRecipients } },
        select: { id: true, recipientId: true },
      })
    : [];
  const channelOf = new Map(channels.map((c) => [c.recipientId, c.id]));
  // A channel's first_message_id is read and written back below: locked, then read.
  const losingFirst = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
    SELECT id FROM streams WHERE first_message_id = ANY(${ids}::int[])
    ORDER BY id FOR NO KEY UPDATE`);
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
  for (const { id } of losingFirst) await moveFirstMessage(tx, events, realmId, id);
  for (const conversation of byConversation(messages)) {
    const first = at(conversation, 0);
    const streamId = first.isChannelMessage ? channelOf.get(first.recipientId) : undefined;
    const messageIds = conversation.map((m) => m.id).sort((a, b) => a - b);
    await events.emit(
      realmId,
      deleteMessageEvent(
        streamId !== undefined
          ? {
              message_type: 'stream',
              message_ids: messageIds,
              stream_id: streamId,
              topic: first.subject,
            }
          : { message_type: 'private', message_ids: messageIds },
      ),
      audiences.get(conversationKey(first)) ?? [],
    );
  }
}

/**
 * The channel's first message was deleted: its oldest remaining one takes its place, and clients,
 * which keep first_message_id from register, hear of it. The channel's row is locked.
 */
async function moveFirstMessage(
  tx: Tx,
  events: EventSink,
  realmId: number,
  streamId: number,
): Promise<void> {
  // Already locked by the caller's query; taken again here, where the read is.
  await lockRow(tx, 'streams', streamId);
  const stream = await tx.stream.findUniqueOrThrow({ where: { id: streamId } });
  const next = await tx.message.findFirst({
    where: { recipientId: stream.recipientId ?? undefined },
    orderBy: { id: 'asc' },
    select: { id: true },
  });
  await tx.stream.update({ where: { id: stream.id }, data: { firstMessageId: next?.id ?? null } });
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

/** Messages by conversation (`conversationKey`), each group in the callers' order. */
function byConversation(messages: DeletedMessage[]): DeletedMessage[][] {
  const groups = new Map<string, DeletedMessage[]>();
  for (const message of messages) {
    const key = conversationKey(message);
    const group = groups.get(key);
    if (group) group.push(message);
    else groups.set(key, [message]);
  }
  return [...groups.values()];
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
