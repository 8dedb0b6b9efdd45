import type { Message, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { lockRow, type LockStrength } from '../../db/locks';
import { badRequest } from '../../core/errors';
import { canReadChannelHistory } from '../permissions/messages';
import { Flag } from './flags';

type Reader = Db | Tx;

/** Flags shown for a channel message the user reads from history without a UserMessage row. */
export const HISTORICAL_FLAGS = Flag.read | Flag.historical;

export const invalidMessage = () => badRequest('Invalid message(s)');

export interface AccessibleMessage {
  message: Message;
  /** The user's UserMessage flags, or null when read from channel history. */
  flags: number | null;
}

/**
 * Zulip's access_message: the user received the message (a UserMessage row), or it is in a
 * channel whose history the user may read. Anything else is "Invalid message(s)", never a hint
 * that the message exists.
 */
export async function accessMessage(
  db: Reader,
  user: Pick<User, 'id' | 'role' | 'realmId'>,
  messageId: number,
): Promise<AccessibleMessage> {
  const message = await db.message.findUnique({ where: { id: messageId } });
  if (!message || message.realmId !== user.realmId) throw invalidMessage();
  const um = await db.userMessage.findUnique({
    where: { userId_messageId: { userId: user.id, messageId } },
    select: { flags: true },
  });
  if (um) return { message, flags: Number(um.flags) };
  if (message.isChannelMessage) {
    const stream = await db.stream.findFirst({ where: { recipientId: message.recipientId } });
    if (stream && (await canReadChannelHistory(db, user, stream))) {
      return { message, flags: null };
    }
  }
  throw invalidMessage();
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
