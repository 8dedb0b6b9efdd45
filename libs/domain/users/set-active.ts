import type { Tx } from '../../db/client';
import { lockRows } from '../../db/locks';

/**
 * Flips `is_active`, keeping the subscriptions' copy of it (`is_user_active`) in step. Whoever
 * flips it last decides: an LDAP sync's mark (`ldapSyncDeactivated`) is dropped. The rows are
 * taken `FOR UPDATE` first: the one mode that waits for the `FOR KEY SHARE` a message being
 * written holds on its sender (send-message.ts, `activeSender`), so no message commits after its
 * sender's deactivation, while sends never wait for their sender's other updates.
 */
export async function setActive(tx: Tx, userIds: number[], isActive: boolean): Promise<void> {
  await lockRows(tx, 'users', userIds, 'FOR UPDATE');
  await tx.user.updateMany({
    where: { id: { in: userIds } },
    data: { isActive, ldapSyncDeactivated: false },
  });
  await tx.subscription.updateMany({
    where: { userId: { in: userIds } },
    data: { isUserActive: isActive },
  });
}
