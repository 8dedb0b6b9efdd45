import type { Db, Tx } from '../../db/client';
import { groupsContainingUser } from './groups';

/**
 * Is the user in the set a group-setting value describes? Named and anonymous values are both
 * stored as a group ID, so this is recursive group membership.
 */
export async function userHasGroupSetting(
  db: Db | Tx,
  userId: number,
  settingGroupId: number,
): Promise<boolean> {
  return (await groupsContainingUser(db, userId, [settingGroupId])).has(settingGroupId);
}
