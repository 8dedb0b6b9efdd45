import type { Attachment, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { checkAccess, Permission } from './access';

/**
 * May the user read an uploaded file (Zulip's validate_attachment_request)? Its uploader may;
 * anyone else needs a message linking it that they may read (`Permission.MessageRead`: one they
 * received, or one in a channel whose history they may read). Files of another organization never.
 */
export async function canAccessAttachment(
  db: Db | Tx,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  attachment: Pick<Attachment, 'id' | 'ownerId' | 'realmId'>,
): Promise<boolean> {
  if (attachment.realmId !== user.realmId) return false;
  if (attachment.ownerId === user.id) return true;
  const links = await db.attachmentMessage.findMany({
    where: { attachmentId: attachment.id },
    select: { messageId: true },
  });
  const readable = await checkAccess(db, {
    auth: { user },
    permission: Permission.MessageRead,
    ids: links.map((l) => l.messageId),
  });
  return readable.size > 0;
}
