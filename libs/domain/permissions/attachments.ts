import { Prisma, type Attachment, type Stream, type User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { canReadChannelHistory } from './messages';

type Reader = Db | Tx;

/**
 * May the user read an uploaded file (Zulip's validate_attachment_request)? Its uploader may;
 * anyone else needs a message linking it that they may read: one they received, or one in a
 * channel whose history they may read (public channels for non-guests, or a subscribed channel
 * with shared history). Files of another organization never.
 */
export async function canAccessAttachment(
  db: Reader,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  attachment: Pick<Attachment, 'id' | 'ownerId' | 'realmId'>,
): Promise<boolean> {
  if (attachment.realmId !== user.realmId) return false;
  if (attachment.ownerId === user.id) return true;
  const [{ received }] = await db.$queryRaw<{ received: boolean }[]>(Prisma.sql`
    SELECT EXISTS (
      SELECT 1 FROM attachment_messages am
      JOIN user_messages um ON um.message_id = am.message_id AND um.user_id = ${user.id}
      WHERE am.attachment_id = ${attachment.id}
    ) AS received`);
  if (received) return true;
  const channels = await db.$queryRaw<
    Pick<Stream, 'inviteOnly' | 'historyPublicToSubscribers' | 'recipientId'>[]
  >(Prisma.sql`
    SELECT DISTINCT s.invite_only AS "inviteOnly",
      s.history_public_to_subscribers AS "historyPublicToSubscribers",
      s.recipient_id AS "recipientId"
    FROM attachment_messages am
    JOIN messages m ON m.id = am.message_id AND m.is_channel_message
    JOIN streams s ON s.recipient_id = m.recipient_id
    WHERE am.attachment_id = ${attachment.id}`);
  for (const channel of channels) {
    if (await canReadChannelHistory(db, user, channel)) return true;
  }
  return false;
}
