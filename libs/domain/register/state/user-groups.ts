import type { StateProvider } from './types';

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** `user_group`: the realm's groups with direct members (active users) and direct subgroups. */
export const userGroupsState: StateProvider = {
  eventTypes: ['realm_user_groups', 'user_group'],
  async fetch({ ctx, realm, capabilities }) {
    const groups = await ctx.db.userGroup.findMany({
      where: {
        realmId: realm.id,
        named: true,
        ...(capabilities.include_deactivated_groups ? {} : { deactivated: false }),
      },
      orderBy: { id: 'asc' },
      include: {
        members: { where: { user: { isActive: true } }, select: { userId: true } },
        subgroups: { select: { subgroupId: true } },
      },
    });
    return {
      realm_user_groups: groups.map((g) => ({
        id: g.id,
        name: g.name,
        description: g.description,
        members: g.members.map((m) => m.userId).sort((a, b) => a - b),
        direct_subgroup_ids: g.subgroups.map((s) => s.subgroupId).sort((a, b) => a - b),
        is_system_group: g.isSystemGroup,
        creator_id: g.creatorId,
        date_created: g.isSystemGroup ? null : seconds(g.dateCreated),
        deactivated: g.deactivated,
        can_add_members_group: g.canAddMembersGroupId,
        can_join_group: g.canJoinGroupId,
        can_leave_group: g.canLeaveGroupId,
        can_manage_group: g.canManageGroupId,
        can_mention_group: g.canMentionGroupId,
        can_remove_members_group: g.canRemoveMembersGroupId,
      })),
    };
  },
};
