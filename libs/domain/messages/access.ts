import type { Message, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { lockRow, type LockStrength } from '../../db/locks';
import { invalidMessage, Permission, requireAccess } from '../permissions/access';
import { Flag } from './flags';

type Reader = Db | Tx;

/** Flags shown for a channel message the user reads from history without a UserMessage row. */
export const HISTORICAL_FLAGS = Flag.read | Flag.historical;

export interface AccessibleMessage {
  message: Message;
  /** The user's UserMessage flags, or null when read from channel history. */
  flags: number | null;
}

/**
 * Zulip's access_message: `Permission.MessageRead` (the user received the message, or may read
 * its channel's history), then the message with the user's flags. Anything else is "Invalid
 * message(s)", never a hint that the message exists.
 */
export async function accessMessage(
  db: Reader,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  messageId: number,
): Promise<AccessibleMessage> {
  await requireAccess(db, { auth: { user }, permission: Permission.MessageRead, ids: [messageId] });
  const message = await db.message.findUnique({
    where: { id: messageId },
    include: { userMessages: { where: { userId: user.id }, select: { flags: true } } },
  });
  if (!message) throw invalidMessage();
  const { userMessages, ...row } = message;
  const [copy] = userMessages;
  return { message: row, flags: copy ? Number(copy.flags) : null };
}

/**
 * `accessMessage` on the message's row locked until the transaction ends (Zulip's
 * `access_message(..., lock_message=True)`): what the action then reads of it is the last
 * committed version, and nobody else changes it before the action's writes commit. A message
 * deleted meanwhile answers "Invalid message(s)", as if it had never been there.
 */
export async function accessLockedMessage(
  tx: Tx,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  messageId: number,
  strength: LockStrength = 'FOR NO KEY UPDATE',
): Promise<AccessibleMessage> {
  if (!(await lockRow(tx, 'messages', messageId, strength))) throw invalidMessage();
  return accessMessage(tx, user, messageId);
}
