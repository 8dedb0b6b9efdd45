import type { Realm } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import type { AccessUser, Verdict } from './access';
import { channelCrowding } from './access-queries';
import { groupsContainingUser } from './groups';

/*
 * The entry point's answers (access.ts) for the mentions of a new message (Zulip's checks in
 * check_message): the user groups it mentions (`Permission.UserGroupMention`) and the channel its
 * wildcard mentions reach (`Permission.ChannelWildcardMention`).
 */

/** Zulip's WILDCARD_MENTION_THRESHOLD: wildcards reaching more users need can_mention_many_users_group. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/** The user groups among `ids` the user may mention, by each group's `can_mention_group`. */
export async function groupMentionVerdict(
  db: Db | Tx,
  user: AccessUser,
  ids: number[],
): Promise<Verdict> {
  const groups = await db.userGroup.findMany({
    where: { id: { in: ids }, realmId: user.realmId },
    select: { id: true, name: true, canMentionGroupId: true },
  });
  const settingIds = groups.flatMap((g) =>
    g.canMentionGroupId === null ? [] : [g.canMentionGroupId],
  );
  const holding = await groupsContainingUser(db, user.id, settingIds);
  const names = new Map(groups.map((g) => [g.id, g.name ?? '']));
  const allowed = groups.filter(
    (g) => g.canMentionGroupId !== null && holding.has(g.canMentionGroupId),
  );
  return {
    allowed: new Set(allowed.map((g) => g.id)),
    refusal: (id) => {
      const name = names.get(id);
      return name === undefined
        ? badRequest('Invalid user group')
        : badRequest(`You are not allowed to mention user group '${name}'.`);
    },
  };
}

/**
 * The channels among `ids` whose wildcard mentions (@all, @channel...) the user may make: any
 * with at most WILDCARD_MENTION_THRESHOLD subscribers, and larger ones only as a member of the
 * organization's `can_mention_many_users_group`.
 */
export async function wildcardMentionVerdict(
  db: Db | Tx,
  {
    user,
    realm,
    ids,
  }: { user: AccessUser; realm: Pick<Realm, 'canMentionManyUsersGroupId'>; ids: number[] },
): Promise<Verdict> {
  const rows = await channelCrowding(db, user, { ids, threshold: WILDCARD_MENTION_THRESHOLD });
  const groupId = realm.canMentionManyUsersGroupId;
  const mayReachMany =
    groupId !== null &&
    rows.some((row) => row.crowded) &&
    (await groupsContainingUser(db, user.id, [groupId])).has(groupId);
  const found = new Set(rows.map((row) => row.id));
  return {
    allowed: new Set(rows.filter((row) => !row.crowded || mayReachMany).map((row) => row.id)),
    refusal: (id) =>
      badRequest(
        found.has(id)
          ? 'You do not have permission to use channel wildcard mentions in this channel.'
          : 'Invalid channel ID',
      ),
  };
}
