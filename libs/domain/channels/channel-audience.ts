import type { Stream } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { Role } from '../users/roles';

/**
 * Users who can see a channel's metadata and subscribers, as event recipients: for a public
 * channel every active non-guest (plus subscribed guests, and guests for web-public channels);
 * for a private one its subscribers and the organization administrators.
 */
export async function channelAudienceIds(
  db: Db | Tx,
  realmId: number,
  stream: Pick<Stream, 'inviteOnly' | 'isWebPublic' | 'recipientId'>,
): Promise<number[]> {
  const subscribers = stream.recipientId
    ? await db.subscription.findMany({
        where: { recipientId: stream.recipientId, active: true, isUserActive: true },
        select: { userId: true },
      })
    : [];
  const others = await db.user.findMany({
    where: {
      realmId,
      isActive: true,
      role: stream.inviteOnly
        ? { lte: Role.ADMINISTRATOR }
        : stream.isWebPublic
          ? undefined
          : { not: Role.GUEST },
    },
    select: { id: true },
  });
  return [...new Set([...subscribers.map((s) => s.userId), ...others.map((u) => u.id)])].sort(
    (a, b) => a - b,
  );
}
