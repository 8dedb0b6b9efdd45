import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../http/errors';
import type { AppContext } from '../context';
import { deleteRefusal } from '../permissions/messages';
import { messageAudience } from '../reactions/event-recipients';
import { accessMessage } from './access';

/** DELETE /messages/{message_id} (Zulip's delete_message_backend). */
export async function deleteMessage(
  ctx: AppContext,
  input: { user: User; realm: Realm; messageId: number },
): Promise<void> {
  const { message } = await accessMessage(ctx.db, input.user, input.messageId);
  const refusal = await deleteRefusal(ctx.db, input.realm, input.user, message, new Date());
  if (refusal) throw badRequest(refusal);
  await inTransaction(ctx, async (tx, events) => {
    const audience = await messageAudience(tx, [message.id]);
    const stream = message.isChannelMessage
      ? await tx.stream.findFirst({ where: { recipientId: message.recipientId } })
      : null;
    await tx.message.delete({ where: { id: message.id } });
    if (stream && stream.firstMessageId === message.id) {
      const next = await tx.message.findFirst({
        where: { recipientId: message.recipientId },
        orderBy: { id: 'asc' },
        select: { id: true },
      });
      await tx.stream.update({
        where: { id: stream.id },
        data: { firstMessageId: next?.id ?? null },
      });
    }
    await events.emit(
      input.realm.id,
      {
        type: 'delete_message',
        message_type: stream ? 'stream' : 'private',
        message_id: message.id,
        message_ids: [message.id],
        ...(stream ? { stream_id: stream.id, topic: message.subject } : {}),
      },
      audience,
    );
  });
}
