import type { Realm, User, UserGroup } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { namedGroup, realmUserIds } from './access-group';
import { GROUP_SETTING_COLUMN } from './format-group';
import { userGroupEvent } from '../../protocol/events/user-group';

/** Is a group used in any setting (organization, channel, or another group)? */
async function groupInUse(tx: Tx, realm: Realm, group: UserGroup): Promise<boolean> {
  const freshRealm = (await tx.realm.findUnique({ where: { id: realm.id } })) as Record<
    string,
    unknown
  > | null;
  if (
    freshRealm &&
    Object.entries(freshRealm).some(
      ([key, value]) => /Group(s)?Id$/.test(key) && value === group.id,
    )
  ) {
    return true;
  }
  const channel = await tx.stream.findFirst({
    where: {
      realmId: realm.id,
      isArchived: false,
      OR: [
        { canAddSubscribersGroupId: group.id },
        { canAdministerChannelGroupId: group.id },
        { canRemoveSubscribersGroupId: group.id },
        { canSendMessageGroupId: group.id },
        { canSubscribeGroupId: group.id },
      ],
    },
    select: { id: true },
  });
  if (channel) return true;
  const otherGroup = await tx.userGroup.findFirst({
    where: {
      realmId: realm.id,
      id: { not: group.id },
      deactivated: false,
      OR: [
        ...Object.values(GROUP_SETTING_COLUMN).map((column) => ({ [column]: group.id })),
        { named: false, subgroups: { some: { subgroupId: group.id } } },
      ],
    },
    select: { id: true },
  });
  return otherGroup !== null;
}

/** `POST /user_groups/{id}/deactivate`: refused while a setting still uses the group. */
export async function deactivateUserGroup(
  ctx: AppContext,
  input: { actor: User; realm: Realm; groupId: number },
): Promise<void> {
  const { actor, realm } = input;
  await inTransaction(ctx, async (tx, events) => {
    const group = await namedGroup(tx, realm.id, input.groupId);
    await requireAccess(tx, {
      auth: { user: actor },
      permission: Permission.UserGroupManage,
      ids: [group.id],
    });
    if (group.deactivated) throw badRequest('User group is already deactivated.');
    if (await groupInUse(tx, realm, group))
      throw badRequest('Cannot deactivate user group in use.');
    await tx.userGroup.update({ where: { id: group.id }, data: { deactivated: true } });
    await events.emit(
      realm.id,
      userGroupEvent({ op: 'update', group_id: group.id, data: { deactivated: true } }),
      await realmUserIds(tx, realm.id),
    );
  });
}
