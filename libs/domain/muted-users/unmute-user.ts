import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { sendMutedUsersEvent } from './muted-users-event';
import { targetUser } from './muted-user-target';

/** `DELETE /users/me/muted_users/{id}`. */
export async function unmuteUser(ctx: AppContext, user: User, mutedUserId: number): Promise<void> {
  const target = await targetUser(ctx, user, mutedUserId);
  await inTransaction(ctx, async (tx, events) => {
    const removed = await tx.mutedUser.deleteMany({
      where: { userProfileId: user.id, mutedUserId: target.id },
    });
    if (removed.count === 0) throw badRequest('User is not muted');
    await sendMutedUsersEvent(tx, events, user);
  });
}
