import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { createUserGroup } from '../../../libs/domain/groups/create-group';
import {
  USER_GROUP_SETTINGS,
  type UserGroupSetting,
} from '../../../libs/domain/groups/format-group';
import {
  groupSettingUpdateSchema,
  groupSettingValueSchema,
  type GroupSettingUpdate,
  type GroupSettingValue,
} from '../../../libs/domain/groups/group-setting-value';
import { updateGroupMembers } from '../../../libs/domain/groups/members';
import {
  readGroupMembers,
  readGroupMembership,
  readSubgroups,
  readUserGroups,
} from '../../../libs/domain/groups/read-groups';
import { updateSubgroups } from '../../../libs/domain/groups/subgroups';
import { deactivateUserGroup, updateUserGroup } from '../../../libs/domain/groups/update-group';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

const ids = () => P.json(Joi.array().items(Joi.number().integer()).default([]));
const groupId = { user_group_id: P.int(Joi.number().integer().required()) };

type CreateParams = {
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
} & Partial<Record<UserGroupSetting, GroupSettingValue>>;

type PatchParams = {
  user_group_id: number;
  name?: string;
  description?: string;
  deactivated?: boolean;
} & Partial<Record<UserGroupSetting, GroupSettingUpdate>>;

function pick<T>(
  params: Partial<Record<UserGroupSetting, T>>,
): Partial<Record<UserGroupSetting, T>> {
  const out: Partial<Record<UserGroupSetting, T>> = {};
  for (const s of USER_GROUP_SETTINGS) if (params[s] !== undefined) out[s] = params[s];
  return out;
}

export function userGroupRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/user_groups',
    authed<{ include_deactivated_groups: boolean }>(
      ctx,
      { include_deactivated_groups: P.bool(Joi.boolean().default(false)) },
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
    authed<CreateParams>(
      ctx,
      {
        name: P.string(Joi.string().allow('').required()),
        description: P.string(Joi.string().allow('').required()),
        members: P.json(Joi.array().items(Joi.number().integer()).required()),
        subgroups: ids(),
        ...Object.fromEntries(USER_GROUP_SETTINGS.map((s) => [s, P.json(groupSettingValueSchema)])),
      },
      async ({ user, realm, params }) => ({
        group_id: await createUserGroup(ctx, {
          actor: user,
          realm,
          name: params.name,
          description: params.description,
          members: params.members,
          subgroups: params.subgroups,
          settings: pick(params),
        }),
      }),
    ),
  );
  router.patch(
    '/user_groups/:user_group_id',
    authed<PatchParams>(
      ctx,
      {
        ...groupId,
        name: P.string(),
        description: P.string(),
        deactivated: P.bool(),
        ...Object.fromEntries(
          USER_GROUP_SETTINGS.map((s) => [s, P.json(groupSettingUpdateSchema)]),
        ),
      },
      async ({ user, realm, params }) => {
        await updateUserGroup(ctx, {
          actor: user,
          realm,
          groupId: params.user_group_id,
          name: params.name,
          description: params.description,
          deactivated: params.deactivated,
          settings: pick(params),
        });
      },
    ),
  );
  router.post(
    '/user_groups/:user_group_id/deactivate',
    authed<{ user_group_id: number }>(ctx, groupId, async ({ user, realm, params }) => {
      await deactivateUserGroup(ctx, { actor: user, realm, groupId: params.user_group_id });
    }),
  );
  router.post(
    '/user_groups/:user_group_id/members',
    authed<{ user_group_id: number; add: number[]; delete: number[] }>(
      ctx,
      { ...groupId, add: ids(), delete: ids() },
      async ({ user, realm, params }) => {
        await updateGroupMembers(ctx, {
          actor: user,
          realm,
          groupId: params.user_group_id,
          add: params.add,
          remove: params.delete,
        });
      },
    ),
  );
  router.get(
    '/user_groups/:user_group_id/members',
    authed<{ user_group_id: number; direct_member_only: boolean }>(
      ctx,
      { ...groupId, direct_member_only: P.bool(Joi.boolean().default(false)) },
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
    authed<{ user_group_id: number; user_id: number; direct_member_only: boolean }>(
      ctx,
      {
        ...groupId,
        user_id: P.int(Joi.number().integer().required()),
        direct_member_only: P.bool(Joi.boolean().default(false)),
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
  router.post(
    '/user_groups/:user_group_id/subgroups',
    authed<{ user_group_id: number; add: number[]; delete: number[] }>(
      ctx,
      { ...groupId, add: ids(), delete: ids() },
      async ({ user, realm, params }) => {
        await updateSubgroups(ctx, {
          actor: user,
          realm,
          groupId: params.user_group_id,
          add: params.add,
          remove: params.delete,
        });
      },
    ),
  );
  router.get(
    '/user_groups/:user_group_id/subgroups',
    authed<{ user_group_id: number; direct_subgroup_only: boolean }>(
      ctx,
      { ...groupId, direct_subgroup_only: P.bool(Joi.boolean().default(false)) },
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
