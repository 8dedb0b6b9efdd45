import { Prisma, type Stream } from '../../../generated/prisma/client';
import type { ApiChannel } from '../../protocol/records';
import type { Db, Tx } from '../../db/client';
import { serializeGroupSettings } from '../groups/group-setting-value';
import { at } from '../../core/at';

/** A channel in Zulip's API shape (spec 2.2): the API record of libs/protocol. */
export type ChannelDict = ApiChannel;

/** Legacy `stream_post_policy` (deprecated FL 333) derived from `can_send_message_group`. */
const POST_POLICY_BY_GROUP: Record<string, number> = {
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};

const WEEK_MS = 7 * 24 * 3600 * 1000;

/**
 * Formats channels in bulk: group settings, first message and weekly traffic each come from one
 * query. Weekly traffic follows Zulip: null for channels younger than a week, otherwise the
 * average over the last four weeks (or the channel's age, if shorter), rounded.
 */
export async function formatChannels(
  db: Db | Tx,
  streams: Stream[],
  now: Date = new Date(),
): Promise<ChannelDict[]> {
  if (streams.length === 0) return [];
  const groupIds = streams.flatMap((s) => [
    s.canAddSubscribersGroupId,
    s.canRemoveSubscribersGroupId,
    s.canAdministerChannelGroupId,
    s.canSendMessageGroupId,
    s.canSubscribeGroupId,
  ]);
  const recipientIds = streams.map((s) => s.recipientId).filter((id): id is number => id !== null);
  const since = new Date(now.getTime() - 4 * WEEK_MS);
  const [settings, named, stats] = await Promise.all([
    serializeGroupSettings(db, groupIds),
    db.userGroup.findMany({
      where: { id: { in: [...new Set(streams.map((s) => s.canSendMessageGroupId))] } },
      select: { id: true, name: true },
    }),
    recipientIds.length
      ? db.$queryRaw<{ recipient_id: number; first_id: number | null; recent: bigint }[]>(
          Prisma.sql`
          SELECT recipient_id, MIN(id) AS first_id,
                 COUNT(*) FILTER (WHERE date_sent >= ${since}) AS recent
          FROM messages WHERE recipient_id = ANY(${recipientIds}::int[])
          GROUP BY recipient_id`,
        )
      : Promise.resolve([]),
  ]);
  const groupName = new Map(named.map((g) => [g.id, g.name]));
  const byRecipient = new Map(stats.map((r) => [r.recipient_id, r]));
  return streams.map((s) => {
    const stat = s.recipientId !== null ? byRecipient.get(s.recipientId) : undefined;
    const ageMs = now.getTime() - s.dateCreated.getTime();
    let traffic: number | null = null;
    if (ageMs >= WEEK_MS) {
      const weeks = Math.min(4, ageMs / WEEK_MS);
      traffic = Math.round(Number(stat?.recent ?? 0) / weeks);
    }
    const policy = POST_POLICY_BY_GROUP[groupName.get(s.canSendMessageGroupId) ?? ''] ?? 1;
    const setting = (id: number) => settings.get(id) ?? id;
    return {
      stream_id: s.id,
      name: s.name,
      is_archived: s.isArchived,
      description: s.description,
      rendered_description: s.renderedDescription,
      date_created: Math.floor(s.dateCreated.getTime() / 1000),
      creator_id: s.creatorId,
      invite_only: s.inviteOnly,
      is_web_public: s.isWebPublic,
      stream_post_policy: policy,
      is_announcement_only: policy === 2,
      message_retention_days: s.messageRetentionDays,
      history_public_to_subscribers: s.historyPublicToSubscribers,
      first_message_id: stat?.first_id ?? s.firstMessageId ?? null,
      is_recently_active: s.isRecentlyActive,
      can_add_subscribers_group: setting(s.canAddSubscribersGroupId),
      can_remove_subscribers_group: setting(s.canRemoveSubscribersGroupId),
      can_administer_channel_group: setting(s.canAdministerChannelGroupId),
      can_send_message_group: setting(s.canSendMessageGroupId),
      can_subscribe_group: setting(s.canSubscribeGroupId),
      stream_weekly_traffic: traffic,
    };
  });
}

export async function formatChannel(db: Db | Tx, stream: Stream): Promise<ChannelDict> {
  return at(await formatChannels(db, [stream]), 0);
}
