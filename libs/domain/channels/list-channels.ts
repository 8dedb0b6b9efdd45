import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { canListAllChannels, isOpenPublicChannel } from '../permissions/channels';
import { checkAccess, checkAccessMany, Permission, requireAccess } from '../permissions/access';
import { isWebPublicChannel } from '../permissions/channel-kinds';
import { formatChannels, type ChannelDict } from './format-channel';
import { equalsIgnoringCase } from '../../db/text-match';

export interface ListChannelsOptions {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  excludeArchived: boolean;
  includeAll: boolean;
  includeDefault: boolean;
  includeOwnerSubscribed: boolean;
  includeCanAccessContent: boolean;
  includeAllActive: boolean;
}

/** `GET /streams` (spec 4.9): the union of the requested categories the caller may see. */
export async function listChannels(
  db: Db,
  user: User,
  realm: Realm,
  o: ListChannelsOptions,
): Promise<ChannelDict[]> {
  if (o.includeAllActive && !canListAllChannels(user))
    throw badRequest('User not authorized for this query');
  const streams = await db.stream.findMany({
    where: { realmId: realm.id, ...(o.excludeArchived ? { isArchived: false } : {}) },
    orderBy: { id: 'asc' },
  });
  const access = await checkAccessMany(db, {
    auth: { user, realm },
    permissions: [
      Permission.ChannelMetadata,
      Permission.ChannelRead,
      Permission.SubscriptionUpdate,
    ],
    ids: streams.map((s) => s.id),
  });
  const seen = access[Permission.ChannelMetadata];
  let ownerRecipients = new Set<number>();
  if (o.includeOwnerSubscribed && user.isBot && user.botOwnerId) {
    const subs = await db.subscription.findMany({
      where: { userId: user.botOwnerId, active: true },
      select: { recipientId: true },
    });
    ownerRecipients = new Set(subs.map((s) => s.recipientId));
  }
  // Each category names channels one may see anyway; "public" and "web-public" are kinds.
  const chosen = streams.filter((s) => {
    if ((o.includeAll || o.includeAllActive) && seen.has(s.id)) return true;
    if (o.includeSubscribed && access[Permission.SubscriptionUpdate].has(s.id)) return true;
    if (o.includePublic && isOpenPublicChannel(user, s)) return true;
    if (o.includeWebPublic && isWebPublicChannel(s)) return true;
    if (o.includeCanAccessContent && access[Permission.ChannelRead].has(s.id)) return true;
    return ownerRecipients.has(s.recipientId ?? -1) && seen.has(s.id);
  });
  const dicts = await formatChannels(db, chosen);
  if (o.includeDefault) {
    const defaults = new Set(
      (await db.defaultStream.findMany({ where: { realmId: realm.id } })).map((d) => d.streamId),
    );
    for (const d of dicts) d.is_default = defaults.has(d.stream_id);
  }
  return dicts;
}

/** The organization's channel `streamId` if the caller has `permission` on it, else a refusal. */
async function channelWithAccess(
  db: Db,
  user: User,
  target: {
    realm: Realm;
    streamId: number;
    permission: Permission.ChannelMetadata | Permission.ChannelSubscribers;
  },
): Promise<Stream> {
  const { realm, streamId, permission } = target;
  const stream = await db.stream.findFirst({ where: { id: streamId, realmId: realm.id } });
  if (!stream) throw badRequest('Invalid channel ID');
  await requireAccess(db, { auth: { user }, permission, ids: [stream.id] });
  return stream;
}

/** A channel the caller has metadata access to, or Zulip's "Invalid channel ID". */
export function accessibleChannel(
  db: Db,
  user: User,
  realm: Realm,
  streamId: number,
): Promise<Stream> {
  return channelWithAccess(db, user, { realm, streamId, permission: Permission.ChannelMetadata });
}

/** `GET /get_stream_id`. */
export async function channelIdByName(
  db: Db,
  user: User,
  realm: Realm,
  name: string,
): Promise<number> {
  const stream = await db.stream.findFirst({
    where: { realmId: realm.id, name: equalsIgnoringCase(name.trim()) },
  });
  const visible = stream
    ? await checkAccess(db, {
        auth: { user },
        permission: Permission.ChannelMetadata,
        ids: [stream.id],
      })
    : new Set<number>();
  if (!stream || !visible.has(stream.id)) throw badRequest(`Invalid channel name '${name}'`);
  return stream.id;
}

/** `GET /streams/{stream_id}/members`: subscriber IDs, for callers who may see them. */
export async function channelMembers(
  db: Db,
  user: User,
  realm: Realm,
  streamId: number,
): Promise<number[]> {
  const stream = await channelWithAccess(db, user, {
    realm,
    streamId,
    permission: Permission.ChannelSubscribers,
  });
  const subs = await db.subscription.findMany({
    where: { recipientId: stream.recipientId ?? -1, active: true, isUserActive: true },
    select: { userId: true },
    orderBy: { userId: 'asc' },
  });
  return subs.map((s) => s.userId);
}
