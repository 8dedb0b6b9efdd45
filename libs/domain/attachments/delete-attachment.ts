import { lockRow } from '../../db/locks';
import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { notifyAttachment } from './format-attachment';
import { removeStoredFile } from './storage';

/**
 * `DELETE /attachments/{attachment_id}`: the uploader removes one of their files, whatever
 * messages link it (their links then find nothing). Anyone else's ID is "Invalid attachment",
 * never a hint that it exists. The file leaves the disk once the row is gone.
 */
export async function deleteAttachment(
  ctx: AppContext,
  input: { actor: Pick<User, 'id' | 'realmId'>; attachmentId: number },
): Promise<void> {
  const { actor, attachmentId } = input;
  const pathId = await inTransaction(ctx, async (tx, events) => {
    // A user's uploads change one request at a time: of two deletes, the second finds none.
    await lockRow(tx, 'users', actor.id);
    const attachment = await tx.attachment.findFirst({
      where: { id: attachmentId, realmId: actor.realmId, ownerId: actor.id },
    });
    // A concurrent deletion of the same file may have got there first.
    const deleted =
      attachment && (await tx.attachment.deleteMany({ where: { id: attachment.id } }));
    if (!attachment || !deleted?.count) throw badRequest('Invalid attachment');
    await notifyAttachment(tx, events, actor, 'remove', { id: attachment.id });
    return attachment.pathId;
  });
  await removeStoredFile(ctx.config, pathId);
}
