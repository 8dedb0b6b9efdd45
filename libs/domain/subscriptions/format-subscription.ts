import type { Stream, Subscription } from '../../../generated/prisma/client';
import type { ApiSubscription } from '../../protocol/records';
import type { Db, Tx } from '../../db/client';
import { formatChannels } from '../channels/format-channel';
import { at } from '../../core/at';

/** A subscription as the API returns it: the API record of libs/protocol. */
export type SubscriptionDict = ApiSubscription;

/** Active subscriber IDs of each recipient, in one query. */
export async function subscriberIdsByRecipient(
  db: Db | Tx,
  recipientIds: number[],
): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  for (const id of recipientIds) out.set(id, []);
  if (recipientIds.length === 0) return out;
  const rows = await db.subscription.findMany({
    where: { recipientId: { in: recipientIds }, active: true, isUserActive: true },
    select: { recipientId: true, userId: true },
    orderBy: { userId: 'asc' },
  });
  for (const row of rows) out.get(row.recipientId)?.push(row.userId);
  return out;
}

/** Formats (subscription, channel) pairs; subscribers included when `subscribers` is given. */
export async function formatSubscriptions(
  db: Db | Tx,
  pairs: { sub: Subscription; stream: Stream }[],
  subscribers?: Map<number, number[]>,
): Promise<SubscriptionDict[]> {
  const channels = await formatChannels(
    db,
    pairs.map((p) => p.stream),
  );
  return pairs.map(({ sub, stream }, i) => {
    const dict: SubscriptionDict = {
      ...at(channels, i),
      color: sub.color,
      is_muted: sub.isMuted,
      in_home_view: !sub.isMuted,
      pin_to_top: sub.pinToTop,
      desktop_notifications: sub.desktopNotifications,
      audible_notifications: sub.audibleNotifications,
      push_notifications: sub.pushNotifications,
      email_notifications: sub.emailNotifications,
      wildcard_mentions_notify: sub.wildcardMentionsNotify,
    };
    if (subscribers) dict.subscribers = subscribers.get(stream.recipientId ?? -1) ?? [];
    return dict;
  });
}
