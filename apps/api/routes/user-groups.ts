import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { pickDefined } from '../../../libs/core/pick';
import { P } from '../../../libs/core/schema';
import { createUserGroup } from '../../../libs/domain/groups/create-group';
import { USER_GROUP_SETTINGS } from '../../../libs/domain/groups/format-group';
import {
  groupSettingUpdate,
  groupSettingValue,
} from '../../../libs/domain/groups/group-setting-value';
import { updateGroupMembers } from '../../../libs/domain/groups/update-group-members';
import {
  readGroupMembers,
  readGroupMembership,
  readSubgroups,
  readUserGroups,
} from '../../../libs/domain/groups/read-groups';
import { updateSubgroups } from '../../../libs/domain/groups/update-subgroups';
import { deactivateUserGroup } from '../../../libs/domain/groups/deactivate-group';
import { updateUserGroup } from '../../../libs/domain/groups/update-group';
import { authed } from '../../../libs/http/route';

/*
 * Zulip's user-group API. The handlers only map parameters: who may read groups (members and
 * administrators, not guests or bots) and who may change one (its can_manage_group,
 * can_add_members_group... settings) is decided by libs/domain/permissions/user-groups.ts,
 * which the actions ask.
 */

/** A missing list means none; the actions refuse a request whose two lists are both empty. */
const ids = () => P.array(P.int()).default([]);
const groupId = { user_group_id: P.int().required() };
/** Members and subgroups change through the same pair of lists; Zulip names removal `delete`. */
const membershipRoute = (
  ctx: AppContext,
  action: typeof updateGroupMembers | typeof updateSubgroups,
) =>
  authed(ctx, { ...groupId, add: ids(), delete: ids() }, async ({ user, realm, params }) => {
    await action(ctx, {
      actor: user,
      realm,
      groupId: params.user_group_id,
      add: params.add,
      remove: params.delete,
    });
  });

export function userGroupRoutes(router: Router, ctx: AppContext): void {
  userGroupListRoutes(router, ctx);
  userGroupUpdateRoutes(router, ctx);
  userGroupMemberRoutes(router, ctx);
}

/** Listing and creating groups. */
function userGroupListRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/user_groups',
    authed(
      ctx,
      { include_deactivated_groups: P.bool().default(false) },
      async ({ user, realm, params }) => {
        return {
          user_groups: await readUserGroups(ctx.db, {
            viewer: user,
            realm,
            includeDeactivated: params.include_deactivated_groups,
          }),
        };
      },
    ),
  );
  router.post(
    '/user_groups/create',
    authed(
      ctx,
      {
        name: P.string().required(),
        description: P.string().required(),
        members: P.array(P.int()).required(),
        subgroups: ids(),
        // Each permission setting is a group ID or an anonymous group (members and subgroups);
        // settings left out are not passed, so the action applies its defaults.
        ...P.each(USER_GROUP_SETTINGS, groupSettingValue),
      },
      async ({ user, realm, params }) => ({
        group_id: await createUserGroup(ctx, {
          actor: user,
          realm,
          name: params.name,
          description: params.description,
          members: params.members,
          subgroups: params.subgroups,
          settings: pickDefined(params, USER_GROUP_SETTINGS),
        }),
      }),
    ),
  );
}

/** Changing and deactivating a group. */
function userGroupUpdateRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/user_groups/:user_group_id',
    authed(
      ctx,
      {
        ...groupId,
        name: P.string(),
        description: P.string(),
        // Only `false` (reactivate) is accepted here: deactivating has its own endpoint, which
        // first checks that no setting still uses the group.
        deactivated: P.bool(),
        // Settings change as `{new, old}`: an `old` that no longer matches is refused, so two
        // administrators editing at once do not silently overwrite each other.
        ...P.each(USER_GROUP_SETTINGS, groupSettingUpdate),
      },
      async ({ user, realm, params }) => {
        await updateUserGroup(ctx, {
          actor: user,
          realm,
          groupId: params.user_group_id,
          name: params.name,
          description: params.description,
          deactivated: params.deactivated,
          settings: pickDefined(params, USER_GROUP_SETTINGS),
        });
      },
    ),
  );
  router.post(
    '/user_groups/:user_group_id/deactivate',
    authed(ctx, groupId, async ({ user, realm, params }) => {
      await deactivateUserGroup(ctx, { actor: user, realm, groupId: params.user_group_id });
    }),
  );
}

/** Members and subgroups. */
function userGroupMemberRoutes(router: Router, ctx: AppContext): void {
  router.post('/user_groups/:user_group_id/members', membershipRoute(ctx, updateGroupMembers));
  router.get(
    '/user_groups/:user_group_id/members',
    authed(
      ctx,
      // By default members through subgroups count too; deactivated users never do.
      { ...groupId, direct_member_only: P.bool().default(false) },
      async ({ user, realm, params }) => {
        return {
          members: await readGroupMembers(ctx.db, {
            viewer: user,
            realm,
            groupId: params.user_group_id,
            directOnly: params.direct_member_only,
          }),
        };
      },
    ),
  );
  router.get(
    '/user_groups/:user_group_id/members/:user_id',
    authed(
      ctx,
      {
        ...groupId,
        user_id: P.int().required(),
        direct_member_only: P.bool().default(false),
      },
      async ({ user, realm, params }) => {
        return {
          is_user_group_member: await readGroupMembership(ctx.db, {
            viewer: user,
            realm,
            groupId: params.user_group_id,
            userId: params.user_id,
            directOnly: params.direct_member_only,
          }),
        };
      },
    ),
  );
  router.post('/user_groups/:user_group_id/subgroups', membershipRoute(ctx, updateSubgroups));
  router.get(
    '/user_groups/:user_group_id/subgroups',
    authed(
      ctx,
      // By default subgroups of subgroups too, all the way down.
      { ...groupId, direct_subgroup_only: P.bool().default(false) },
      async ({ user, realm, params }) => {
        const subgroups = await readSubgroups(ctx.db, {
          viewer: user,
          realm,
          groupId: params.user_group_id,
          directOnly: params.direct_subgroup_only,
        });
        return { subgroups };
      },
    ),
  );
}
