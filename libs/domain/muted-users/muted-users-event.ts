import type { User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { mutedUsersEvent } from '../../protocol/events/muted-users';

export async function sendMutedUsersEvent(tx: Tx, events: EventSink, user: User): Promise<void> {
  const rows = await tx.mutedUser.findMany({
    where: { userProfileId: user.id },
    orderBy: { id: 'asc' },
  });
  await events.emit(
    user.realmId,
    mutedUsersEvent({
      muted_users: rows.map((r) => ({
        id: r.mutedUserId,
        timestamp: Math.floor(r.dateMuted.getTime() / 1000),
      })),
    }),
    [user.id],
  );
}
