import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Config } from '../../core/config';
import type { Db, Tx } from '../../db/client';
import { Role } from '../users/roles';
import { groupsContainingUser } from './groups';

/** The channel columns the channel rules read. */
export type ChannelPermissionRow = Pick<
  Stream,
  | 'id'
  | 'inviteOnly'
  | 'isWebPublic'
  | 'isArchived'
  | 'recipientId'
  | 'canAddSubscribersGroupId'
  | 'canAdministerChannelGroupId'
  | 'canRemoveSubscribersGroupId'
  | 'canSendMessageGroupId'
  | 'canSubscribeGroupId'
>;

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
}

const isAdmin = (user: ChannelActor) => user.role <= Role.ADMINISTRATOR;

/** Organization administrators (and owners). */
export const isRealmAdmin = (user: Pick<User, 'role'>): boolean => user.role <= Role.ADMINISTRATOR;
/** Organization owners. */
export const isRealmOwner = (user: Pick<User, 'role'>): boolean => user.role === Role.OWNER;
/** Guests. */
export const isRealmGuest = (user: Pick<User, 'role'>): boolean => user.role === Role.GUEST;
const isGuest = (user: ChannelActor) => user.role === Role.GUEST;

/**
 * Channel rules of spec 2.2: administrators administer every channel and remove subscribers as
 * if in the groups; non-guests may subscribe to any public channel; `can_subscribe_group` and
 * `can_add_subscribers_group` members get content access to private channels.
 */
export async function channelAccess(
  db: Db | Tx,
  user: ChannelActor,
  channels: ChannelPermissionRow[],
  realm: Pick<Realm, 'canAddSubscribersGroupId'>,
): Promise<Map<number, ChannelAccess>> {
  const out = new Map<number, ChannelAccess>();
  if (channels.length === 0) return out;
  const recipientIds = channels.map((c) => c.recipientId).filter((id): id is number => id !== null);
  const groupIds = new Set<number>();
  for (const c of channels) {
    groupIds.add(c.canAddSubscribersGroupId);
    groupIds.add(c.canAdministerChannelGroupId);
    groupIds.add(c.canRemoveSubscribersGroupId);
    groupIds.add(c.canSendMessageGroupId);
    groupIds.add(c.canSubscribeGroupId);
  }
  if (realm.canAddSubscribersGroupId) groupIds.add(realm.canAddSubscribersGroupId);
  const [subs, inGroups] = await Promise.all([
    db.subscription.findMany({
      where: { userId: user.id, active: true, recipientId: { in: recipientIds } },
      select: { recipientId: true },
    }),
    groupsContainingUser(db, user.id, [...groupIds]),
  ]);
  const subscribedTo = new Set(subs.map((s) => s.recipientId));
  const realmAdd = realm.canAddSubscribersGroupId
    ? inGroups.has(realm.canAddSubscribersGroupId)
    : false;
  for (const c of channels) {
    const subscribed = c.recipientId !== null && subscribedTo.has(c.recipientId);
    const inSubscribeGroup = inGroups.has(c.canSubscribeGroupId);
    const inAddGroup = inGroups.has(c.canAddSubscribersGroupId);
    const inAdminGroup = inGroups.has(c.canAdministerChannelGroupId);
    const publicAccess = !c.inviteOnly && (!isGuest(user) || c.isWebPublic);
    const content = subscribed || publicAccess || inSubscribeGroup || inAddGroup;
    const administer = isAdmin(user) || inAdminGroup;
    const metadata = content || administer;
    // Archived channels still take subscription changes (FL 362) but no messages.
    const subscribeSelf = subscribed || (!c.inviteOnly && !isGuest(user)) || inSubscribeGroup;
    const addSubscribers =
      inAddGroup || (content && (realmAdd || administer)) || (administer && !c.inviteOnly);
    const removeSubscribers =
      isAdmin(user) || (metadata && inGroups.has(c.canRemoveSubscribersGroupId));
    out.set(c.id, {
      subscribed,
      content,
      metadata,
      administer,
      subscribeSelf,
      addSubscribers,
      removeSubscribers,
    });
  }
  return out;
}

/** One channel's access; see `channelAccess`. */
export async function channelAccessFor(
  db: Db | Tx,
  user: ChannelActor,
  channel: ChannelPermissionRow,
  realm: Pick<Realm, 'canAddSubscribersGroupId'>,
): Promise<ChannelAccess> {
  const map = await channelAccess(db, user, [channel], realm);
  return map.get(channel.id) as ChannelAccess;
}

export type ChannelKind = 'public' | 'private' | 'web-public';

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
  if (isAdmin(user)) return true;
  const id = realm.canAddSubscribersGroupId;
  if (id === null) return false;
  return (await groupsContainingUser(db, user.id, [id])).has(id);
}
