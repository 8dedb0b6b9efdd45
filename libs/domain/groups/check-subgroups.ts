import { Prisma } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';

/**
 * Subgroups to add must be named groups of the organization and must not contain the
 * supergroup (directly or through their own subgroups), which would make a cycle.
 */
export async function checkSubgroups(
  tx: Tx,
  realmId: number,
  supergroupId: number,
  subgroupIds: number[],
): Promise<void> {
  const found = await tx.userGroup.findMany({
    where: { id: { in: subgroupIds }, realmId, named: true },
    select: { id: true },
  });
  const ok = new Set(found.map((g) => g.id));
  const missing = subgroupIds.find((id) => !ok.has(id));
  if (missing !== undefined) throw badRequest(`Invalid user group ID: ${missing}`);
  const rows = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
    WITH RECURSIVE below(id) AS (
      SELECT unnest(${subgroupIds}::int[])
      UNION
      SELECT gm.subgroup_id FROM group_group_memberships gm JOIN below b ON gm.supergroup_id = b.id
    )
    SELECT id FROM below WHERE id = ${supergroupId}`);
  if (rows.length) {
    throw badRequest(
      `User group ${supergroupId} is already a subgroup of one of the passed subgroups.`,
    );
  }
}
