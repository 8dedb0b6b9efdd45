import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canCreateUserGroups } from '../permissions/user-groups';
import { MAX_USER_GROUP_NAME_LENGTH } from '../length-limits';
import { activeUserIds, checkGroupName, realmUserIds } from './access-group';
import {
  formatUserGroups,
  GROUP_SETTING_COLUMN,
  GROUP_SETTING_RULES,
  USER_GROUP_SETTINGS,
  type UserGroupSetting,
} from './format-group';
import { resolveGroupSetting, type GroupSettingValue } from './group-setting-value';
import { systemGroupIds } from './system-groups';
import { checkSubgroups } from './check-subgroups';
import { userGroupEvent } from '../../protocol/events/user-group';
import { at } from '../../core/at';

export interface CreateGroupInput {
  actor: User;
  realm: Realm;
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Partial<Record<UserGroupSetting, GroupSettingValue>>;
}

/**
 * `POST /user_groups/create` (spec 4.13). Zulip's defaults: the creator manages the group and
 * adds members, everyone may mention it and leave it, nobody else joins or removes members.
 */
export async function createUserGroup(ctx: AppContext, input: CreateGroupInput): Promise<number> {
  const { actor, realm } = input;
  const name = checkGroupName(input.name, MAX_USER_GROUP_NAME_LENGTH);
  return inTransaction(ctx, async (tx, events) => {
    if (!(await canCreateUserGroups(tx, actor, realm))) throw badRequest('Insufficient permission');
    const clash = await tx.userGroup.findFirst({
      where: { realmId: realm.id, named: true, name },
      select: { id: true },
    });
    if (clash) throw badRequest(`User group '${name}' already exists.`);
    const members = await activeUserIds(tx, realm.id, input.members);
    const groups = await systemGroupIds(tx, realm.id);
    const creatorOnly: GroupSettingValue = { direct_members: [actor.id], direct_subgroups: [] };
    const defaults: Record<UserGroupSetting, GroupSettingValue> = {
      can_add_members_group: creatorOnly,
      can_join_group: groups['role:nobody'],
      can_leave_group: groups['role:everyone'],
      can_manage_group: creatorOnly,
      can_mention_group: groups['role:everyone'],
      can_remove_members_group: groups['role:nobody'],
    };
    const data: Record<string, number> = {};
    for (const setting of USER_GROUP_SETTINGS) {
      data[GROUP_SETTING_COLUMN[setting]] = await resolveGroupSetting(tx, {
        realmId: realm.id,
        settingName: setting,
        value: input.settings[setting] ?? defaults[setting],
        rules: GROUP_SETTING_RULES[setting],
      });
    }
    const group = await tx.userGroup.create({
      data: {
        realmId: realm.id,
        name,
        description: input.description,
        named: true,
        creatorId: actor.id,
        ...data,
      },
    });
    if (members.length) {
      await tx.userGroupMembership.createMany({
        data: members.map((userId) => ({ userGroupId: group.id, userId })),
      });
    }
    const subgroups = [...new Set(input.subgroups)];
    if (subgroups.length) {
      await checkSubgroups(tx, realm.id, group.id, subgroups);
      await tx.groupGroupMembership.createMany({
        data: subgroups.map((subgroupId) => ({ supergroupId: group.id, subgroupId })),
      });
    }
    const dict = at(await formatUserGroups(tx, [group]), 0);
    await events.emit(
      realm.id,
      userGroupEvent({ op: 'add', group: dict }),
      await realmUserIds(tx, realm.id),
    );
    return group.id;
  });
}
