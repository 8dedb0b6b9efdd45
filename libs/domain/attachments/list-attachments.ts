import type { User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { attachmentDicts, uploadSpaceUsed, type ApiAttachment } from './format-attachment';

/** `GET /attachments`: the user's own uploads and the organization's total upload size. */
export async function listAttachments(
  db: Db,
  user: Pick<User, 'id' | 'realmId'>,
): Promise<{ attachments: ApiAttachment[]; upload_space_used: number }> {
  return {
    attachments: await attachmentDicts(db, { ownerId: user.id }),
    upload_space_used: await uploadSpaceUsed(db, user.realmId),
  };
}
