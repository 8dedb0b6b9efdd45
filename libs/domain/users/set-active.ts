import type { Tx } from '../../db/client';

/**
 * Flips `is_active`, keeping the subscriptions' copy of it (`is_user_active`) in step. Whoever
 * flips it last decides: an LDAP sync's mark (`ldapSyncDeactivated`) is dropped.
 */
export async function setActive(tx: Tx, userIds: number[], isActive: boolean): Promise<void> {
  await tx.user.updateMany({
    where: { id: { in: userIds } },
    data: { isActive, ldapSyncDeactivated: false },
  });
  await tx.subscription.updateMany({
    where: { userId: { in: userIds } },
    data: { isUserActive: isActive },
  });
}
