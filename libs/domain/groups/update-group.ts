import { lockRow } from '../../db/locks';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { MAX_USER_GROUP_NAME_LENGTH } from '../length-limits';
import { checkGroupName, namedGroup, realmUserIds } from './access-group';
import { GROUP_SETTING_COLUMN, GROUP_SETTING_RULES, type UserGroupSetting } from './format-group';
import {
  applyGroupSettingUpdate,
  dropAnonymousGroup,
  type GroupSettingUpdate,
  type GroupSettingValue,
} from './group-setting-value';
import { userGroupEvent } from '../../protocol/events/user-group';

export interface UpdateGroupInput {
  actor: User;
  realm: Realm;
  groupId: number;
  name?: string;
  description?: string;
  /** false reactivates a deactivated group. */
  deactivated?: boolean;
  settings: Partial<Record<UserGroupSetting, GroupSettingUpdate>>;
}

/** `PATCH /user_groups/{id}` (spec 4.8); deactivated groups may still be edited (FL 340). */
export async function updateUserGroup(ctx: AppContext, input: UpdateGroupInput): Promise<void> {
  const { actor, realm } = input;
  const settingNames = Object.keys(input.settings) as UserGroupSetting[];
  if (
    input.name === undefined &&
    input.description === undefined &&
    input.deactivated === undefined &&
    settingNames.length === 0
  ) {
    throw badRequest('No new data supplied');
  }
  await inTransaction(ctx, async (tx, events) => {
    // The group locked first, then read and checked: changes of it take turns.
    await lockRow(tx, 'user_groups', input.groupId);
    const group = await namedGroup(tx, realm.id, input.groupId);
    await requireAccess(tx, {
      auth: { user: actor },
      permission: Permission.UserGroupManage,
      ids: [group.id],
    });
    const data: Record<string, unknown> = {};
    const changed: Record<string, GroupSettingValue | string | boolean> = {};
    const dropped: number[] = [];
    if (input.name !== undefined && input.name !== group.name) {
      const name = checkGroupName(input.name, MAX_USER_GROUP_NAME_LENGTH);
      const clash = await tx.userGroup.findFirst({
        where: { realmId: realm.id, named: true, name, id: { not: group.id } },
      });
      if (clash) throw badRequest(`User group '${name}' already exists.`);
      data.name = changed.name = name;
    }
    if (input.description !== undefined && input.description !== group.description) {
      data.description = changed.description = input.description;
    }
    if (input.deactivated !== undefined) {
      if (input.deactivated) throw badRequest('Invalid parameters');
      if (group.deactivated) data.deactivated = changed.deactivated = false;
    }
    for (const setting of settingNames) {
      const column = GROUP_SETTING_COLUMN[setting];
      const currentId = group[column] ?? group.id;
      const result = await applyGroupSettingUpdate(tx, {
        realmId: realm.id,
        settingName: setting,
        currentGroupId: currentId,
        update: input.settings[setting] as GroupSettingUpdate,
        rules: GROUP_SETTING_RULES[setting],
      });
      if (!result) continue;
      data[column] = result.groupId;
      changed[setting] = result.value;
      dropped.push(currentId);
    }
    if (Object.keys(data).length === 0) return;
    await tx.userGroup.update({ where: { id: group.id }, data });
    for (const id of dropped) await dropAnonymousGroup(tx, id);
    await events.emit(
      realm.id,
      userGroupEvent({ op: 'update', group_id: group.id, data: changed }),
      await realmUserIds(tx, realm.id),
    );
  });
}
