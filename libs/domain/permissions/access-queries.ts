import { Prisma } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';

/*
 * The access rules as set queries: each takes the asker and a list of IDs and answers, in one
 * SQL statement, the IDs of the asker's organization the rule lets through (Immich's
 * access.repository.ts; Zulip keeps the set forms beside its access_* predicates). Only the
 * entry point (access.ts) and the channel rules (channels.ts) call them.
 */

type Reader = Db | Tx;

/** Zulip's scheduled-message `delivery_type` for "send later" (2 is a reminder). */
const SEND_LATER = 1;

/** Who asks. `seesAllPublic` is the role rule of channels.ts (`seesAllPublicChannels`). */
export interface QueryActor {
  id: number;
  realmId: number;
  seesAllPublic: boolean;
}

const subscribedTo = (userId: number) => Prisma.sql`EXISTS (SELECT 1 FROM subscriptions sub
  WHERE sub.recipient_id = s.recipient_id AND sub.user_id = ${userId} AND sub.active)`;

/** Channel `s` is open without a subscription: public, to those who see all public channels. */
const openChannel = (a: QueryActor) => Prisma.sql`(NOT s.invite_only AND ${a.seesAllPublic})`;

/**
 * Channel `s`'s history is readable (Zulip's has_message_access for history): an open channel,
 * or a subscription to a channel whose history is public to subscribers.
 */
const historyReadable = (a: QueryActor) =>
  Prisma.sql`(${openChannel(a)} OR (s.history_public_to_subscribers AND ${subscribedTo(a.id)}))`;

async function idSet(db: Reader, query: Prisma.Sql): Promise<Set<number>> {
  const rows = await db.$queryRaw<{ id: number }[]>(query);
  return new Set(rows.map((r) => r.id));
}

/** Channels whose messages the asker may read without having received them. */
export const channelsWithReadableHistory = (db: Reader, a: QueryActor, ids: number[]) =>
  idSet(
    db,
    Prisma.sql`SELECT s.id FROM streams s WHERE s.id = ANY(${ids}::int[])
      AND s.realm_id = ${a.realmId} AND ${historyReadable(a)}`,
  );

/** Channels the asker may see and list the topics of (spec 4.16): open, or subscribed. */
export const channelsWithVisibleTopics = (db: Reader, a: QueryActor, ids: number[]) =>
  idSet(
    db,
    Prisma.sql`SELECT s.id FROM streams s WHERE s.id = ANY(${ids}::int[])
      AND s.realm_id = ${a.realmId} AND (${openChannel(a)} OR ${subscribedTo(a.id)})`,
  );

/**
 * Messages the asker may read (Zulip's access_message): received (a UserMessage row), or in a
 * channel whose history they may read.
 */
export const readableMessages = (db: Reader, a: QueryActor, ids: number[]) =>
  idSet(
    db,
    Prisma.sql`SELECT m.id FROM messages m WHERE m.id = ANY(${ids}::int[])
      AND m.realm_id = ${a.realmId} AND (
        EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ${a.id})
        OR (m.is_channel_message AND EXISTS (SELECT 1 FROM streams s
          WHERE s.recipient_id = m.recipient_id AND ${historyReadable(a)})))`,
  );

/** Scheduled messages that are the asker's own "send later" messages. */
export const ownScheduledMessages = (db: Reader, a: QueryActor, ids: number[]) =>
  idSet(
    db,
    Prisma.sql`SELECT id FROM scheduled_messages WHERE id = ANY(${ids}::int[])
      AND realm_id = ${a.realmId} AND sender_id = ${a.id} AND delivery_type = ${SEND_LATER}`,
  );

/** What the channel rules read of each channel: its kind, and the asker's memberships. */
export interface ChannelMembershipRow {
  id: number;
  inviteOnly: boolean;
  isWebPublic: boolean;
  subscribed: boolean;
  inSubscribeGroup: boolean;
  inAddGroup: boolean;
  inAdminGroup: boolean;
  inRemoveGroup: boolean;
  inRealmAddGroup: boolean;
}

/**
 * For each channel of the asker's organization among `ids`: the asker's subscription and which
 * of its permission groups (and the organization's `can_add_subscribers_group`) hold them,
 * through subgroups too. `mine` climbs from the asker's groups to every group containing them.
 */
export function channelMemberships(
  db: Reader,
  a: Pick<QueryActor, 'id' | 'realmId'>,
  { ids, realmAddGroupId }: { ids: number[]; realmAddGroupId: number | null },
): Promise<ChannelMembershipRow[]> {
  return db.$queryRaw<ChannelMembershipRow[]>(Prisma.sql`
    WITH RECURSIVE mine(id) AS (
      SELECT user_group_id FROM user_group_memberships WHERE user_id = ${a.id}
      UNION
      SELECT gm.supergroup_id FROM group_group_memberships gm JOIN mine g ON gm.subgroup_id = g.id
    )
    SELECT s.id, s.invite_only AS "inviteOnly", s.is_web_public AS "isWebPublic",
      ${subscribedTo(a.id)} AS subscribed,
      s.can_subscribe_group_id IN (SELECT id FROM mine) AS "inSubscribeGroup",
      s.can_add_subscribers_group_id IN (SELECT id FROM mine) AS "inAddGroup",
      s.can_administer_channel_group_id IN (SELECT id FROM mine) AS "inAdminGroup",
      s.can_remove_subscribers_group_id IN (SELECT id FROM mine) AS "inRemoveGroup",
      COALESCE(${realmAddGroupId}::int IN (SELECT id FROM mine), false) AS "inRealmAddGroup"
    FROM streams s WHERE s.id = ANY(${ids}::int[]) AND s.realm_id = ${a.realmId}`);
}

/** Channels the asker holds an active subscription to. */
export const subscribedChannels = (db: Reader, a: QueryActor, ids: number[]) =>
  idSet(
    db,
    Prisma.sql`SELECT s.id FROM streams s WHERE s.id = ANY(${ids}::int[])
      AND s.realm_id = ${a.realmId} AND ${subscribedTo(a.id)}`,
  );

/**
 * Channels open to the asker without a subscription (channels.ts's `channelOpenTo`: any public
 * channel, and for guests the web-public ones), or subscribed: where typing may be announced.
 */
export const channelsOpenOrSubscribed = (db: Reader, a: QueryActor, ids: number[]) =>
  idSet(
    db,
    Prisma.sql`SELECT s.id FROM streams s WHERE s.id = ANY(${ids}::int[])
      AND s.realm_id = ${a.realmId}
      AND ((NOT s.invite_only AND (${a.seesAllPublic} OR s.is_web_public)) OR ${subscribedTo(a.id)})`,
  );

/** Drafts that are the asker's own. */
export const ownDrafts = (db: Reader, a: QueryActor, ids: number[]) =>
  idSet(db, Prisma.sql`SELECT id FROM drafts WHERE id = ANY(${ids}::int[]) AND user_id = ${a.id}`);

/**
 * For each channel of the asker's organization among `ids`: whether more than `threshold` active
 * users are subscribed to it (who a wildcard mention reaches).
 */
export const channelCrowding = (
  db: Reader,
  a: Pick<QueryActor, 'realmId'>,
  { ids, threshold }: { ids: number[]; threshold: number },
) =>
  db.$queryRaw<{ id: number; crowded: boolean }[]>(Prisma.sql`
    SELECT s.id, (SELECT count(*) FROM subscriptions sub WHERE sub.recipient_id = s.recipient_id
        AND sub.active AND sub.is_user_active) > ${threshold} AS crowded
    FROM streams s WHERE s.id = ANY(${ids}::int[]) AND s.realm_id = ${a.realmId}`);
