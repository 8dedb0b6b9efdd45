import type { Stream, Subscription, User } from '../../../../generated/prisma/client';
import type { Db, Tx } from '../../../db/client';
import { RecipientType } from '../../recipients';

export interface ChannelView {
  streams: Stream[];
  subs: Map<number, Subscription>;
}

/** The realm's channels with the user's subscription rows (archived ones only when asked for). */
export async function channelsForUser(
  db: Db | Tx,
  user: User,
  includeArchived: boolean,
): Promise<ChannelView> {
  const streams = await db.stream.findMany({
    where: { realmId: user.realmId, ...(includeArchived ? {} : { isArchived: false }) },
    orderBy: { id: 'asc' },
  });
  const subs = await db.subscription.findMany({
    where: { userId: user.id, recipient: { type: RecipientType.STREAM } },
  });
  const byRecipient = new Map(subs.map((s) => [s.recipientId, s]));
  const subsByStream = new Map<number, Subscription>();
  for (const stream of streams) {
    const sub = stream.recipientId === null ? undefined : byRecipient.get(stream.recipientId);
    if (sub) subsByStream.set(stream.id, sub);
  }
  return { streams, subs: subsByStream };
}
