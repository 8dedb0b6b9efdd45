import type { Realm, Stream, User } from '../../../generated/prisma/client';
import { badRequest, insufficientPermission } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { checkAccess, Permission } from '../permissions/access';
import { canAddSubscribersInRealm } from '../permissions/channels';
import { requireCanInviteAs } from '../permissions/invites';

export interface InviteTargets {
  role: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
}

/**
 * Checks the channels and groups a new user would join: each channel must be a default channel
 * or one the inviter may add subscribers to, and naming any needs permission to subscribe others.
 */
export async function checkInviteTargets(
  ctx: AppContext,
  actor: User,
  realm: Realm,
  targets: InviteTargets,
): Promise<Stream[]> {
  requireCanInviteAs(actor, targets.role);
  if (
    (targets.streamIds.length > 0 || targets.includeRealmDefaultSubscriptions) &&
    !(await canAddSubscribersInRealm(ctx.db, actor, realm))
  ) {
    throw badRequest('You do not have permission to subscribe other users to channels.');
  }
  const streams = await ctx.db.stream.findMany({
    where: { realmId: realm.id, id: { in: targets.streamIds }, isArchived: false },
  });
  const defaults = new Set(
    (await ctx.db.defaultStream.findMany({ where: { realmId: realm.id } })).map((d) => d.streamId),
  );
  const addable = await checkAccess(ctx.db, {
    auth: { user: actor, realm },
    permission: Permission.ChannelAddSubscribers,
    ids: streams.map((s) => s.id),
  });
  for (const id of targets.streamIds) {
    const stream = streams.find((s) => s.id === id);
    if (!stream || !(defaults.has(id) || addable.has(id))) {
      throw badRequest(`Channel does not exist with ID: ${id}. No invites were sent.`);
    }
  }
  if (targets.groupIds.length) {
    const groups = await ctx.db.userGroup.findMany({
      where: { realmId: realm.id, id: { in: targets.groupIds }, deactivated: false },
    });
    // As Zulip's access_user_groups_for_invite: the right to add members to each group.
    const addable = await checkAccess(ctx.db, {
      auth: { user: actor },
      permission: Permission.UserGroupAddMembers,
      ids: groups.map((g) => g.id),
    });
    for (const id of targets.groupIds) {
      const group = groups.find((g) => g.id === id);
      if (!group || group.isSystemGroup) throw badRequest('Invalid user group ID');
      if (!addable.has(id)) throw insufficientPermission();
    }
  }
  return streams;
}

export const expiryFrom = (minutes: number | null, now: Date): Date | null =>
  minutes === null ? null : new Date(now.getTime() + minutes * 60_000);

/**
 * The channels and groups an invitation links, as nested creates; a channel or group named twice
 * is one link (the join tables' keys say so).
 */
export const targetLinks = (targets: Pick<InviteTargets, 'streamIds' | 'groupIds'>) => ({
  streams: { create: [...new Set(targets.streamIds)].map((streamId) => ({ streamId })) },
  groups: { create: [...new Set(targets.groupIds)].map((userGroupId) => ({ userGroupId })) },
});
