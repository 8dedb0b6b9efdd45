import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { accessMessage } from './access';
import { Flag } from './flags';

/**
 * `GET /messages/{message_id}/read_receipts` (FL 137): the active users who marked the message
 * read and share read receipts (`send_read_receipts`), never its sender, and nobody the caller
 * muted or who muted the caller (FL 143), so muting cannot be inferred. Bots count, as in Zulip.
 */
export async function readReceipts(
  db: Db,
  input: { user: User; realm: Realm; messageId: number },
): Promise<number[]> {
  const { message } = await accessMessage(db, input.user, input.messageId);
  if (!input.realm.enableReadReceipts) {
    throw badRequest('Read receipts are disabled in this organization.');
  }
  const viewer = input.user.id;
  const rows = await db.$queryRaw<{ user_id: number }[]>(Prisma.sql`
    SELECT um.user_id FROM user_messages um
    JOIN users u ON u.id = um.user_id
    WHERE um.message_id = ${message.id}
      AND (um.flags & ${Flag.read}) <> 0
      AND um.user_id <> ${message.senderId}
      AND u.is_active AND u.send_read_receipts
      AND NOT EXISTS (
        SELECT 1 FROM muted_users mu
        WHERE (mu.user_profile_id = ${viewer} AND mu.muted_user_id = um.user_id)
           OR (mu.user_profile_id = um.user_id AND mu.muted_user_id = ${viewer}))
    ORDER BY um.user_id`);
  return rows.map((r) => r.user_id);
}
