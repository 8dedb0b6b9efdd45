import type { Realm } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import {
  applyGroupSettingUpdate,
  dropAnonymousGroup,
  type GroupSettingUpdate,
  type GroupSettingValue,
} from '../groups/group-setting-value';
import { realmEvent } from '../../protocol/events/realm';

/**
 * Organization group settings `PATCH /realm` changes (update form `{new, old}`), each stored in the
 * Realm column named. `allowedSystemGroups`: the setting takes only these system groups (Zulip's
 * require_system_group with allowed_system_groups); without it any group or anonymous value but
 * `role:internet` (Zulip's defaults).
 */
const REALM_GROUP_SETTINGS: Record<
  | 'can_access_all_users_group'
  | 'direct_message_permission_group'
  | 'direct_message_initiator_group',
  {
    column:
      | 'canAccessAllUsersGroupId'
      | 'directMessagePermissionGroupId'
      | 'directMessageInitiatorGroupId';
    allowedSystemGroups?: readonly string[];
  }
> = {
  can_access_all_users_group: {
    column: 'canAccessAllUsersGroupId',
    allowedSystemGroups: ['role:everyone', 'role:members'],
  },
  direct_message_permission_group: { column: 'directMessagePermissionGroupId' },
  direct_message_initiator_group: { column: 'directMessageInitiatorGroupId' },
};

type RealmGroupSettingName = keyof typeof REALM_GROUP_SETTINGS;
export type RealmGroupSettingChanges = Partial<Record<RealmGroupSettingName, GroupSettingUpdate>>;

export const REALM_GROUP_SETTING_NAMES = Object.keys(
  REALM_GROUP_SETTINGS,
) as RealmGroupSettingName[];

/**
 * The named group a value stands for: Zulip reads an anonymous value of one subgroup as that
 * group and an empty one as `role:nobody`; null for a true anonymous group.
 */
function namedGroupOf(value: GroupSettingValue): { id: number } | { name: string } | null {
  if (typeof value === 'number') return { id: value };
  if (value.direct_members.length > 0 || value.direct_subgroups.length > 1) return null;
  const [subgroup] = value.direct_subgroups;
  return subgroup === undefined ? { name: 'role:nobody' } : { id: subgroup };
}

/** A value for an organization's group setting that only some system groups may hold. */
interface SystemGroupSetting {
  realmId: number;
  name: string;
  allowed: readonly string[];
  value: GroupSettingValue;
}

/** Refuses anything but one of `allowed` system groups, with Zulip's wording. */
async function checkSystemGroup(
  tx: Tx,
  { realmId, name, allowed, value }: SystemGroupSetting,
): Promise<void> {
  const ref = namedGroupOf(value);
  if (!ref) throw badRequest(`'${name}' must be a system user group.`);
  const group = await tx.userGroup.findFirst({
    where: { ...ref, realmId, named: true },
    select: { name: true, isSystemGroup: true },
  });
  if (!group) throw badRequest('Invalid user group');
  if (!group.isSystemGroup) throw badRequest(`'${name}' must be a system user group.`);
  if (!allowed.includes(group.name ?? '')) {
    throw badRequest(`'${name}' setting cannot be set to '${group.name}' group.`);
  }
}

/**
 * Applies group-setting changes inside `updateRealm`'s transaction: one `realm` update_dict event
 * per setting whose value changes.
 */
export async function applyRealmGroupSettings(
  tx: Tx,
  events: EventSink,
  input: { realm: Realm; changes: RealmGroupSettingChanges; audience: number[] },
): Promise<void> {
  for (const name of REALM_GROUP_SETTING_NAMES) {
    const update = input.changes[name];
    if (update === undefined) continue;
    const setting = REALM_GROUP_SETTINGS[name];
    if (setting.allowedSystemGroups) {
      await checkSystemGroup(tx, {
        realmId: input.realm.id,
        name,
        allowed: setting.allowedSystemGroups,
        value: update.new,
      });
    }
    const current = input.realm[setting.column];
    if (current === null) throw new Error(`realm ${input.realm.id} has no ${name}`);
    const changed = await applyGroupSettingUpdate(tx, {
      realmId: input.realm.id,
      settingName: name,
      currentGroupId: current,
      update,
    });
    if (!changed) continue;
    await tx.realm.update({
      where: { id: input.realm.id },
      data: { [setting.column]: changed.groupId },
    });
    if (changed.groupId !== current) await dropAnonymousGroup(tx, current);
    await events.emit(
      input.realm.id,
      realmEvent({ op: 'update_dict', property: 'default', data: { [name]: changed.value } }),
      input.audience,
    );
  }
}
