import type { Realm, User } from '../../../generated/prisma/client';
import { insufficientPermission } from '../../core/errors';
import type { Db, Tx } from '../../db/client';
import { BotType } from '../users/roles';
import type { AccessUser, Verdict } from './access';
import { groupsContainingUser } from './groups';
import { ascendingIds, isRealmAdmin, isRealmGuest, realmAdminIds } from './roles';

/**
 * Bot creation: members of `can_create_bots_group` create any kind of bot; members of
 * `can_create_write_only_bots_group` create incoming-webhook bots only. Guests never do.
 */
export async function canCreateBot(
  db: Db | Tx,
  realm: Realm,
  user: User,
  botType: number,
): Promise<boolean> {
  if (user.isBot || isRealmGuest(user)) return false;
  const groupIds = [realm.canCreateBotsGroupId, realm.canCreateWriteOnlyBotsGroupId].filter(
    (id): id is number => id !== null,
  );
  const containing = await groupsContainingUser(db, user.id, groupIds);
  if (realm.canCreateBotsGroupId !== null && containing.has(realm.canCreateBotsGroupId))
    return true;
  return (
    botType === BotType.INCOMING_WEBHOOK &&
    realm.canCreateWriteOnlyBotsGroupId !== null &&
    containing.has(realm.canCreateWriteOnlyBotsGroupId)
  );
}

/**
 * `Permission.BotAdminister` (access.ts): a bot is administered by its owner and by the
 * organization's administrators. System bots are no one's.
 */
export async function administrableBots(
  db: Db | Tx,
  user: AccessUser,
  ids: number[],
): Promise<Verdict> {
  const bots = await db.user.findMany({
    where: { id: { in: ids }, realmId: user.realmId, isBot: true, isSystemBot: false },
    select: { id: true, botOwnerId: true },
  });
  const allowed = bots.filter((bot) => bot.botOwnerId === user.id || isRealmAdmin(user));
  return { allowed: new Set(allowed.map((b) => b.id)), refusal: () => insufficientPermission() };
}

/** Who administers a bot (`administrableBots`), as event recipients: its owner and the administrators. */
export async function botAdministratorIds(
  db: Db | Tx,
  realmId: number,
  ownerId: number | null,
): Promise<Set<number>> {
  const admins = await realmAdminIds(db, realmId);
  return ownerId === null ? admins : ascendingIds([...admins, ownerId]);
}
