import type { Realm, User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { Permission, requireAccess } from '../permissions/access';
import { RecipientType } from '../recipients';
import {
  formatSubscriptions,
  subscriberIdsByRecipient,
  type SubscriptionDict,
} from './format-subscription';

/** `GET /users/me/subscriptions`: the caller's active channel subscriptions. */
export async function listSubscriptions(
  db: Db,
  user: User,
  options: { includeSubscribers: boolean },
): Promise<SubscriptionDict[]> {
  const subs = await db.subscription.findMany({
    where: { userId: user.id, active: true, recipient: { type: RecipientType.STREAM } },
    include: { recipient: { include: { stream: true } } },
    orderBy: { recipientId: 'asc' },
  });
  const pairs = subs
    .filter((s) => s.recipient.stream)
    .map(({ recipient, ...sub }) => ({ sub, stream: recipient.stream! }));
  const subscribers = options.includeSubscribers
    ? await subscriberIdsByRecipient(
        db,
        pairs.map((p) => p.stream.recipientId as number),
      )
    : undefined;
  return formatSubscriptions(db, pairs, subscribers);
}

/** `GET /users/{user_id}/subscriptions/{stream_id}`: needs metadata access to the channel. */
export async function subscriptionStatus(
  db: Db,
  {
    viewer,
    realm,
    userId,
    streamId,
  }: { viewer: User; realm: Realm; userId: number; streamId: number },
): Promise<boolean> {
  const target = await db.user.findFirst({ where: { id: userId, realmId: realm.id } });
  if (!target) throw badRequest('No such user');
  const stream = await db.stream.findFirst({ where: { id: streamId, realmId: realm.id } });
  if (!stream) throw badRequest('Invalid channel ID');
  await requireAccess(db, {
    auth: { user: viewer },
    permission: Permission.ChannelMetadata,
    ids: [stream.id],
  });
  const sub = await db.subscription.findFirst({
    where: { userId, recipientId: stream.recipientId ?? -1, active: true },
    select: { id: true },
  });
  return sub !== null;
}
