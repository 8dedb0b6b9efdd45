import type { User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';

export async function sendMutedUsersEvent(tx: Tx, events: EventSink, user: User): Promise<void> {
  const rows = await tx.mutedUser.findMany({
    where: { userProfileId: user.id },
    orderBy: { id: 'asc' },
  });
  await events.emit(
    user.realmId,
    {
      type: 'muted_users',
      muted_users: rows.map((r) => ({
        id: r.mutedUserId,
        timestamp: Math.floor(r.dateMuted.getTime() / 1000),
      })),
    },
    [user.id],
  );
}
