import { Prisma, type User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Flag } from '../messages/flags';
import { sendMutedUsersEvent } from './muted-users-event';
import { targetUser } from './muted-user-target';
import { updateMessageFlagsEvent } from '../../protocol/events/update-message-flags';

/**
 * `POST /users/me/muted_users/{id}`: mutes a user; their existing messages to the caller are
 * marked read in one UPDATE and the caller gets an `update_message_flags` event for them, as in
 * Zulip.
 */
export async function muteUser(ctx: AppContext, user: User, mutedUserId: number): Promise<void> {
  const target = await targetUser(ctx, user, mutedUserId);
  await inTransaction(ctx, async (tx, events) => {
    const existing = await tx.mutedUser.findUnique({
      where: { userProfileId_mutedUserId: { userProfileId: user.id, mutedUserId: target.id } },
    });
    if (existing) throw badRequest('User already muted');
    await tx.mutedUser.create({ data: { userProfileId: user.id, mutedUserId: target.id } });
    const read = await tx.$queryRaw<{ message_id: number }[]>(Prisma.sql`
      UPDATE user_messages um SET flags = um.flags | ${Flag.read}
      FROM messages m
      WHERE um.message_id = m.id AND um.user_id = ${user.id} AND m.sender_id = ${target.id}
        AND um.flags & ${Flag.read} = 0
      RETURNING um.message_id`);
    if (read.length) {
      // Zulip's do_mark_muted_user_messages_as_read: the muter's clients update unread counts.
      await events.emit(
        user.realmId,
        updateMessageFlagsEvent({
          op: 'add',
          operation: 'add',
          flag: 'read',
          messages: read.map((r) => r.message_id).sort((a, b) => a - b),
          all: false,
        }),
        [user.id],
      );
    }
    await sendMutedUsersEvent(tx, events, user);
  });
}
