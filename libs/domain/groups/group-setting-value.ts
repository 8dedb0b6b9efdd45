import { P, type Infer } from '../../core/schema';
import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { at } from '../../core/at';

/**
 * Group-setting values (spec 2.1): either the ID of a named user group, or an anonymous set of
 * direct members and direct subgroups. Anonymous values are stored as UserGroup rows with
 * `named = false`, so recursive membership queries treat both forms alike.
 */
const anonymousGroup = P.object({
  direct_members: P.array(P.int()).required(),
  direct_subgroups: P.array(P.int()).required(),
});

export const groupSettingValue = P.alternatives(P.int(), anonymousGroup);
export type GroupSettingValue = Infer<typeof groupSettingValue>;

/** A PATCH-style change: `new` is required; `old`, when given, must equal the current value. */
export const groupSettingUpdate = P.object({
  new: groupSettingValue.required(),
  old: groupSettingValue,
});
export type GroupSettingUpdate = Infer<typeof groupSettingUpdate>;

/** Which system groups a setting refuses (Zulip's GroupPermissionSetting flags). */
export interface GroupSettingRules {
  allowInternet?: boolean;
  allowOwners?: boolean;
  allowNobody?: boolean;
  allowEveryone?: boolean;
}

const DEFAULT_RULES: Required<GroupSettingRules> = {
  allowInternet: false,
  allowOwners: true,
  allowNobody: true,
  allowEveryone: true,
};

/** A value given to one group setting of an organization, and the groups that setting refuses. */
export interface GroupSettingAssignment {
  realmId: number;
  settingName: string;
  value: GroupSettingValue;
  rules?: GroupSettingRules;
}

/**
 * Resolves a value to a group ID for storage, creating an anonymous group when needed. Zulip
 * collapses an anonymous value with one subgroup and no members to that subgroup, and an
 * empty one to `role:nobody`.
 */
export async function resolveGroupSetting(
  tx: Tx,
  { realmId, settingName, value, rules = {} }: GroupSettingAssignment,
): Promise<number> {
  const r = { ...DEFAULT_RULES, ...rules };
  if (typeof value === 'number') {
    await checkNamedGroups(tx, { realmId, settingName, ids: [value], rules: r });
    return value;
  }
  const members = [...new Set(value.direct_members)];
  const subgroups = [...new Set(value.direct_subgroups)];
  if (members.length === 0 && subgroups.length === 1) {
    return resolveGroupSetting(tx, { realmId, settingName, value: at(subgroups, 0), rules });
  }
  if (members.length === 0 && subgroups.length === 0) {
    const nobody = await tx.userGroup.findFirst({
      where: { realmId, name: 'role:nobody', isSystemGroup: true },
      select: { id: true },
    });
    if (!nobody) throw badRequest('Invalid user group');
    await checkNamedGroups(tx, { realmId, settingName, ids: [nobody.id], rules: r });
    return nobody.id;
  }
  await checkNamedGroups(tx, {
    realmId,
    settingName,
    ids: subgroups,
    rules: { ...r, allowNobody: true },
  });
  if (members.length) {
    const found = await tx.user.findMany({
      where: { id: { in: members }, realmId, isActive: true },
      select: { id: true },
    });
    const foundIds = new Set(found.map((u) => u.id));
    const missing = members.find((id) => !foundIds.has(id));
    if (missing !== undefined) throw badRequest(`Invalid user ID: ${missing}`);
  }
  const group = await tx.userGroup.create({
    data: { realmId, name: null, named: false, description: '' },
    select: { id: true },
  });
  if (members.length) {
    await tx.userGroupMembership.createMany({
      data: members.map((userId) => ({ userGroupId: group.id, userId })),
    });
  }
  if (subgroups.length) {
    await tx.groupGroupMembership.createMany({
      data: subgroups.map((subgroupId) => ({ supergroupId: group.id, subgroupId })),
    });
  }
  return group.id;
}

/** Named groups a setting's value refers to, checked against the setting's rules. */
interface NamedGroupsCheck {
  realmId: number;
  settingName: string;
  ids: number[];
  rules: Required<GroupSettingRules>;
}

async function checkNamedGroups(
  tx: Tx,
  { realmId, settingName, ids, rules }: NamedGroupsCheck,
): Promise<void> {
  if (ids.length === 0) return;
  const groups = await tx.userGroup.findMany({
    where: { id: { in: ids }, realmId, named: true },
    select: { id: true, name: true, deactivated: true },
  });
  const byId = new Map(groups.map((g) => [g.id, g]));
  for (const id of ids) {
    const group = byId.get(id);
    if (!group) throw badRequest('Invalid user group');
    if (group.deactivated) throw badRequest('User group is deactivated.');
    const refused =
      (!rules.allowInternet && group.name === 'role:internet') ||
      (!rules.allowOwners && group.name === 'role:owners') ||
      (!rules.allowNobody && group.name === 'role:nobody') ||
      (!rules.allowEveryone && group.name === 'role:everyone');
    if (refused) {
      throw badRequest(`'${settingName}' setting cannot be set to '${group.name}' group.`);
    }
  }
}

/** API form of stored settings: an integer for named groups, an object for anonymous ones. */
export async function serializeGroupSettings(
  db: Db | Tx,
  groupIds: number[],
): Promise<Map<number, GroupSettingValue>> {
  const ids = [...new Set(groupIds)];
  const out = new Map<number, GroupSettingValue>();
  if (ids.length === 0) return out;
  const anonymous = await db.userGroup.findMany({
    where: { id: { in: ids }, named: false },
    select: {
      id: true,
      members: { select: { userId: true } },
      subgroups: { select: { subgroupId: true } },
    },
  });
  for (const id of ids) out.set(id, id);
  for (const g of anonymous) {
    out.set(g.id, {
      direct_members: g.members.map((m) => m.userId).sort((a, b) => a - b),
      direct_subgroups: g.subgroups.map((s) => s.subgroupId).sort((a, b) => a - b),
    });
  }
  return out;
}

function sameValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') {
    // An anonymous value with one subgroup and no members means that subgroup.
    const norm = (v: GroupSettingValue) =>
      typeof v === 'number'
        ? v
        : v.direct_members.length === 0 && v.direct_subgroups.length === 1
          ? v.direct_subgroups[0]
          : null;
    return norm(a) !== null && norm(a) === norm(b);
  }
  const set = (xs: number[]) => [...new Set(xs)].sort((x, y) => x - y).join(',');
  return (
    set(a.direct_members) === set(b.direct_members) &&
    set(a.direct_subgroups) === set(b.direct_subgroups)
  );
}

/** A `{new, old}` update of one group setting of an organization, now stored as `currentGroupId`. */
export interface GroupSettingChange {
  realmId: number;
  settingName: string;
  currentGroupId: number;
  update: GroupSettingUpdate;
  rules?: GroupSettingRules;
}

/**
 * Applies a `{new, old}` update to a setting currently stored as `currentGroupId`. Returns the
 * new group ID, or null when the value does not change. A replaced anonymous group is deleted.
 */
export async function applyGroupSettingUpdate(
  tx: Tx,
  { realmId, settingName, currentGroupId, update, rules = {} }: GroupSettingChange,
): Promise<{ groupId: number; value: GroupSettingValue } | null> {
  const current = (await serializeGroupSettings(tx, [currentGroupId])).get(currentGroupId);
  if (current === undefined) throw badRequest('Invalid user group');
  if (update.old !== undefined && !sameValue(update.old, current)) {
    throw badRequest("'old' value does not match the expected value.");
  }
  if (sameValue(update.new, current)) return null;
  const groupId = await resolveGroupSetting(tx, {
    realmId,
    settingName,
    value: update.new,
    rules,
  });
  const value = (await serializeGroupSettings(tx, [groupId])).get(groupId) ?? groupId;
  return { groupId, value };
}

/** Deletes an anonymous group that a setting no longer points at. */
export async function dropAnonymousGroup(tx: Tx, groupId: number): Promise<void> {
  await tx.userGroup.deleteMany({ where: { id: groupId, named: false } });
}
