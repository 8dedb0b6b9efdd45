import type { UserGroup } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import {
  USER_GROUP_SETTINGS,
  type ApiUserGroup,
  type UserGroupSetting,
} from '../../protocol/records';
import { serializeGroupSettings } from './group-setting-value';

export { USER_GROUP_SETTINGS, type UserGroupSetting };

export const GROUP_SETTING_COLUMN = {
  can_add_members_group: 'canAddMembersGroupId',
  can_join_group: 'canJoinGroupId',
  can_leave_group: 'canLeaveGroupId',
  can_manage_group: 'canManageGroupId',
  can_mention_group: 'canMentionGroupId',
  can_remove_members_group: 'canRemoveMembersGroupId',
} as const satisfies Record<UserGroupSetting, keyof UserGroup>;

/** Which system groups each setting refuses (spec 4.8 and Zulip's setting definitions). */
export const GROUP_SETTING_RULES = {
  can_add_members_group: { allowEveryone: false },
  can_join_group: { allowEveryone: false },
  can_leave_group: {},
  can_manage_group: { allowEveryone: false },
  can_mention_group: { allowOwners: false },
  can_remove_members_group: { allowEveryone: false },
} as const satisfies Record<UserGroupSetting, object>;

export type UserGroupDict = ApiUserGroup;

/** Named groups in Zulip's `user_groups` shape, in bulk (three queries). */
export async function formatUserGroups(db: Db | Tx, groups: UserGroup[]): Promise<UserGroupDict[]> {
  const ids = groups.map((g) => g.id);
  const [members, subgroups, settings] = await Promise.all([
    db.userGroupMembership.findMany({
      where: { userGroupId: { in: ids }, user: { isActive: true } },
      select: { userGroupId: true, userId: true },
    }),
    db.groupGroupMembership.findMany({
      where: { supergroupId: { in: ids } },
      select: { supergroupId: true, subgroupId: true },
    }),
    serializeGroupSettings(
      db,
      groups.flatMap((g) => USER_GROUP_SETTINGS.map((s) => g[GROUP_SETTING_COLUMN[s]] ?? g.id)),
    ),
  ]);
  const byGroup = <T>(rows: T[], key: (r: T) => number, value: (r: T) => number) => {
    const map = new Map<number, number[]>();
    for (const r of rows) map.set(key(r), [...(map.get(key(r)) ?? []), value(r)]);
    return map;
  };
  const memberMap = byGroup(
    members,
    (r) => r.userGroupId,
    (r) => r.userId,
  );
  const subMap = byGroup(
    subgroups,
    (r) => r.supergroupId,
    (r) => r.subgroupId,
  );
  const sorted = (xs: number[] | undefined) => [...(xs ?? [])].sort((a, b) => a - b);
  return groups.map((g) => {
    const dict = {
      id: g.id,
      name: g.name ?? '',
      description: g.description,
      members: sorted(memberMap.get(g.id)),
      direct_subgroup_ids: sorted(subMap.get(g.id)),
      is_system_group: g.isSystemGroup,
      creator_id: g.creatorId,
      date_created: g.isSystemGroup ? null : Math.floor(g.dateCreated.getTime() / 1000),
      deactivated: g.deactivated,
    } as UserGroupDict;
    for (const s of USER_GROUP_SETTINGS) {
      const id = g[GROUP_SETTING_COLUMN[s]];
      dict[s] = id === null ? g.id : (settings.get(id) ?? id);
    }
    return dict;
  });
}

/** `GET /user_groups`. */
export async function listUserGroups(
  db: Db,
  realmId: number,
  includeDeactivated: boolean,
): Promise<UserGroupDict[]> {
  const groups = await db.userGroup.findMany({
    where: { realmId, named: true, ...(includeDeactivated ? {} : { deactivated: false }) },
    orderBy: { id: 'asc' },
  });
  return formatUserGroups(db, groups);
}
