import type { Tx } from '../../db/client';
import { Role } from '../users/roles';

/** Who receives `realm_bot` events about a bot: its owner and the organization's administrators. */
export async function botAudience(
  tx: Tx,
  realmId: number,
  ownerId: number | null,
): Promise<number[]> {
  const admins = await tx.user.findMany({
    where: { realmId, isActive: true, isBot: false, role: { lte: Role.ADMINISTRATOR } },
    select: { id: true },
  });
  const ids = new Set(admins.map((a) => a.id));
  if (ownerId !== null) ids.add(ownerId);
  return [...ids].sort((a, b) => a - b);
}
