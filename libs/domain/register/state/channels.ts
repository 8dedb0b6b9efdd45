import type { Stream, Subscription, User } from '../../../../generated/prisma/client';
import type { Db } from '../../../db/client';
import { RecipientType } from '../../recipients';
import { Role } from '../../users/roles';

/** A channel as `streams` and the subscription lists show it (spec 2.2). */
export function formatChannel(stream: Stream): Record<string, unknown> {
  return {
    stream_id: stream.id,
    name: stream.name,
    description: stream.description,
    rendered_description: stream.renderedDescription,
    date_created: Math.floor(stream.dateCreated.getTime() / 1000),
    creator_id: stream.creatorId,
    invite_only: stream.inviteOnly,
    is_web_public: stream.isWebPublic,
    is_archived: stream.isArchived,
    is_recently_active: stream.isRecentlyActive,
    history_public_to_subscribers: stream.historyPublicToSubscribers,
    message_retention_days: stream.messageRetentionDays,
    first_message_id: stream.firstMessageId,
    stream_post_policy: 1,
    is_announcement_only: false,
    stream_weekly_traffic: null,
    can_add_subscribers_group: stream.canAddSubscribersGroupId,
    can_administer_channel_group: stream.canAdministerChannelGroupId,
    can_remove_subscribers_group: stream.canRemoveSubscribersGroupId,
    can_send_message_group: stream.canSendMessageGroupId,
    can_subscribe_group: stream.canSubscribeGroupId,
  };
}

export function formatSubscription(stream: Stream, sub: Subscription): Record<string, unknown> {
  return {
    ...formatChannel(stream),
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
}

/** Active subscriber ids of each channel, in one query. */
export async function subscribersOf(
  db: Db,
  recipientIds: number[],
): Promise<Map<number, number[]>> {
  const rows = await db.subscription.findMany({
    where: { recipientId: { in: recipientIds }, active: true, isUserActive: true },
    select: { recipientId: true, userId: true },
    orderBy: { userId: 'asc' },
  });
  const out = new Map<number, number[]>();
  for (const r of rows) {
    const list = out.get(r.recipientId) ?? [];
    list.push(r.userId);
    out.set(r.recipientId, list);
  }
  return out;
}

export interface ChannelView {
  streams: Stream[];
  subs: Map<number, Subscription>;
}

/** The realm's channels with the user's subscription rows (archived ones only when asked for). */
export async function channelsForUser(
  db: Db,
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

/** Whether the user can see a channel they are not subscribed to. */
export function canSeeUnsubscribed(user: User, stream: Stream): boolean {
  if (user.role === Role.GUEST) return stream.isWebPublic;
  return !stream.inviteOnly || user.role <= Role.ADMINISTRATOR;
}
