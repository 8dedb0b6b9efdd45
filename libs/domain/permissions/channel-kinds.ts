import { Prisma, type Stream } from '../../../generated/prisma/client';

/*
 * The only place, with the set queries of access-queries.ts, that reads a channel's kind
 * (`invite_only`, `is_web_public`, `history_public_to_subscribers`) as a condition. Everything
 * else asks these predicates or the access entry point (access.ts); a lint rule in
 * eslint.config.mjs keeps it so, as it does for role comparisons.
 */

type Kind = Pick<Stream, 'inviteOnly' | 'isWebPublic'>;

export type ChannelKind = 'public' | 'private' | 'web-public';

/** A private (invite-only) channel. */
export const isPrivateChannel = (channel: Pick<Stream, 'inviteOnly'>): boolean =>
  channel.inviteOnly;

/** A web-public channel (never private; readable by spectators when the organization allows). */
export const isWebPublicChannel = (channel: Pick<Stream, 'isWebPublic'>): boolean =>
  channel.isWebPublic;

/** Whether subscribers read the messages sent before they joined. */
export const isHistoryPublicToSubscribers = (
  channel: Pick<Stream, 'historyPublicToSubscribers'>,
): boolean => channel.historyPublicToSubscribers;

/** The channel's kind, as creation permissions and notices name it. */
export const channelKindOf = (channel: Kind): ChannelKind =>
  channel.isWebPublic ? 'web-public' : channel.inviteOnly ? 'private' : 'public';

/**
 * A new private channel keeps its history from new subscribers unless asked otherwise; public and
 * web-public channels always share it.
 */
export const historyPublicForNewChannel = (
  channel: Pick<Stream, 'inviteOnly'> & { historyPublicToSubscribers?: boolean },
): boolean => (channel.inviteOnly ? (channel.historyPublicToSubscribers ?? false) : true);

/**
 * The recipients of an organization's public channels (web-public ones only, with `webOnly`), as
 * a subquery: the `channels:public` and `channels:web-public` narrows.
 */
export const publicChannelRecipientsSql = (realmId: number, webOnly: boolean): Prisma.Sql =>
  Prisma.sql`SELECT recipient_id FROM streams s WHERE s.realm_id = ${realmId}
    AND NOT s.invite_only AND (${!webOnly} OR s.is_web_public)`;

/**
 * The same subquery as plain SQL text for `pg` queries, the organization's ID being the
 * placeholder `realmParam` (`$1`): what a public-data export may include.
 */
export const publicChannelRecipientsText = (realmParam: string): string =>
  `SELECT recipient_id FROM streams
    WHERE realm_id = ${realmParam} AND NOT invite_only AND recipient_id IS NOT NULL`;
