import { formatUserGroups } from '../../groups/format-group';
import type { StateProvider } from './types';

/**
 * `user_group`: the realm's named groups as `GET /user_groups` and `user_group` events show them
 * (one formatter): direct members (active users), direct subgroups, and group settings held by
 * anonymous groups as `{direct_members, direct_subgroups}`.
 */
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
    });
    return { realm_user_groups: await formatUserGroups(ctx.db, groups) };
  },
};
