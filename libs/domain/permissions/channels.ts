import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Config } from '../../core/config';
import { badRequest } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import { channelMemberships, type ChannelMembershipRow } from './access-queries';
import type { ChannelKind } from './channel-kinds';
import { groupsContainingUser } from './groups';
import {
  ascendingIds,
  isRealmAdmin,
  isRealmGuest,
  isRealmOwner,
  realmUserIdsByRole,
} from './roles';

export type ChannelActor = Pick<User, 'id' | 'role' | 'realmId'>;

/** Everything the caller may do with one channel, computed with two queries. */
export interface ChannelAccess {
  subscribed: boolean;
  /** May read messages (and, for private channels, see subscribers). */
  content: boolean;
  /** May see that the channel exists and its settings. */
  metadata: boolean;
  administer: boolean;
  subscribeSelf: boolean;
  addSubscribers: boolean;
  removeSubscribers: boolean;
  /** May see the subscribers: of a private channel only with content access, or as an administrator. */
  subscribers: boolean;
}

type ChannelKindRow = Pick<Stream, 'inviteOnly' | 'isWebPublic'>;

/**
 * Public channels are open to every member, administrator and moderator without subscribing
 * (their content, their history, the list of them, the default ones); guests get only the
 * web-public ones, and the channels they are subscribed to.
 */
export const seesAllPublicChannels = (user: Pick<User, 'role'>): boolean => !isRealmGuest(user);

/** A public channel the user may subscribe to and list by themselves (never for guests). */
export const isOpenPublicChannel = (
  user: Pick<User, 'role'>,
  channel: Pick<Stream, 'inviteOnly'>,
): boolean => !channel.inviteOnly && seesAllPublicChannels(user);

/**
 * Who may see a channel and read it without a subscription or a group setting: any public channel
 * for non-guests, a web-public one for guests (web-public channels are never private). The one
 * visibility rule `channelAccess`, the register state and typing notifications share.
 */
export const channelOpenTo = (user: Pick<User, 'role'>, channel: ChannelKindRow): boolean =>
  !channel.inviteOnly && (seesAllPublicChannels(user) || channel.isWebPublic);

/**
 * Whether the user sees a channel they are not subscribed to (register's `never_subscribed`;
 * asked through `Permission.ChannelListUnsubscribed`, row-verdicts.ts).
 */
export const canSeeUnsubscribed = (user: Pick<User, 'role'>, channel: ChannelKindRow): boolean =>
  channelOpenTo(user, channel) || isRealmAdmin(user);

/** `GET /streams?include_all=true` lists every channel: administrators only. */
export const canListAllChannels = (user: Pick<User, 'role'>): boolean => isRealmAdmin(user);

/**
 * Whether a channel's subscribers are shown to users who never subscribed to it (register's
 * `never_subscribed`): for public channels only, administrators included.
 */
export const showsSubscribersToOutsiders = (channel: Pick<Stream, 'inviteOnly'>): boolean =>
  !channel.inviteOnly;

/** Default channels (`is_default_stream`, `/default_streams`) are set by administrators. */
export const canManageDefaultChannels = (user: Pick<User, 'role'>): boolean => isRealmAdmin(user);

/** A channel's `message_retention_days` is set by organization owners, when created or later. */
export function requireCanSetChannelRetention(user: Pick<User, 'role'>): void {
  if (!isRealmOwner(user)) throw badRequest('Must be an organization owner');
}

/**
 * Channel rules of spec 2.2: administrators administer every channel and remove subscribers as
 * if in the groups; non-guests may subscribe to any public channel; `can_subscribe_group` and
 * `can_add_subscribers_group` members get content access to private channels. One query for any
 * number of channels; a channel of another organization gets no entry.
 */
export async function channelAccess(
  db: Db | Tx,
  user: ChannelActor,
  channels: Pick<Stream, 'id'>[],
  realm: Pick<Realm, 'canAddSubscribersGroupId'>,
): Promise<Map<number, ChannelAccess>> {
  const out = new Map<number, ChannelAccess>();
  if (channels.length === 0) return out;
  const rows = await channelMemberships(db, user, {
    ids: channels.map((c) => c.id),
    realmAddGroupId: realm.canAddSubscribersGroupId,
  });
  for (const row of rows) out.set(row.id, accessFrom(user, row));
  return out;
}

/** An organization's settings as if its `can_add_subscribers_group` were unset. */
export const NO_REALM_GROUP: Pick<Realm, 'canAddSubscribersGroupId'> = {
  canAddSubscribersGroupId: null,
};

function accessFrom(user: ChannelActor, row: ChannelMembershipRow): ChannelAccess {
  const { subscribed, inSubscribeGroup, inAddGroup } = row;
  const content = subscribed || channelOpenTo(user, row) || inSubscribeGroup || inAddGroup;
  const administer = isRealmAdmin(user) || row.inAdminGroup;
  const metadata = content || administer;
  return {
    subscribed,
    content,
    metadata,
    administer,
    // Archived channels still take subscription changes (FL 362) but no messages.
    subscribeSelf: subscribed || isOpenPublicChannel(user, row) || inSubscribeGroup,
    addSubscribers:
      inAddGroup ||
      (content && (row.inRealmAddGroup || administer)) ||
      (administer && !row.inviteOnly),
    removeSubscribers: isRealmAdmin(user) || (metadata && row.inRemoveGroup),
    subscribers: metadata && (!row.inviteOnly || content || isRealmAdmin(user)),
  };
}

/** Organization-level creation permissions for each kind of channel. */
export async function canCreateChannel(
  db: Db | Tx,
  user: ChannelActor,
  realm: Pick<
    Realm,
    | 'canCreatePublicChannelGroupId'
    | 'canCreatePrivateChannelGroupId'
    | 'canCreateWebPublicChannelGroupId'
  >,
  kind: ChannelKind,
): Promise<boolean> {
  const groupId =
    kind === 'private'
      ? realm.canCreatePrivateChannelGroupId
      : kind === 'web-public'
        ? realm.canCreateWebPublicChannelGroupId
        : realm.canCreatePublicChannelGroupId;
  if (groupId === null) return false;
  return (await groupsContainingUser(db, user.id, [groupId])).has(groupId);
}

/** Web-public channels need the server setting and the organization's spectator access. */
export function webPublicChannelsEnabled(
  config: Pick<Config, 'webPublicStreamsEnabled'>,
  realm: Pick<Realm, 'enableSpectatorAccess'>,
): boolean {
  return config.webPublicStreamsEnabled && realm.enableSpectatorAccess;
}

/** May the user subscribe other users at all (the organization's `can_add_subscribers_group`)? */
export async function canAddSubscribersInRealm(
  db: Db | Tx,
  user: ChannelActor,
  realm: Pick<Realm, 'canAddSubscribersGroupId'>,
): Promise<boolean> {
  if (isRealmAdmin(user)) return true;
  const id = realm.canAddSubscribersGroupId;
  if (id === null) return false;
  return (await groupsContainingUser(db, user.id, [id])).has(id);
}

/**
 * Users who can see a channel's metadata and subscribers, as event recipients: for a public
 * channel every active non-guest (plus subscribed guests, and guests for web-public channels);
 * for a private one its subscribers and the organization administrators.
 */
export async function channelAudienceIds(
  db: Db | Tx,
  realmId: number,
  stream: Pick<Stream, 'inviteOnly' | 'isWebPublic' | 'recipientId'>,
): Promise<Set<number>> {
  const [subscribers, others] = await Promise.all([
    stream.recipientId
      ? db.subscription.findMany({
          where: { recipientId: stream.recipientId, active: true, isUserActive: true },
          select: { userId: true },
        })
      : [],
    realmUserIdsByRole(
      db,
      realmId,
      stream.inviteOnly ? 'admins' : stream.isWebPublic ? 'all' : 'non-guests',
    ),
  ]);
  return ascendingIds([...subscribers.map((s) => s.userId), ...others]);
}
