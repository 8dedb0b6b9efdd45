import { Prisma } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';

/** Subgroup IDs of a group: direct only, or all the way down. */
export async function subgroupIds(db: Db, groupId: number, directOnly: boolean): Promise<number[]> {
  if (directOnly) {
    const rows = await db.groupGroupMembership.findMany({
      where: { supergroupId: groupId },
      select: { subgroupId: true },
    });
    return rows.map((r) => r.subgroupId).sort((a, b) => a - b);
  }
  const rows = await db.$queryRaw<{ id: number }[]>(Prisma.sql`
    WITH RECURSIVE below(id) AS (
      SELECT subgroup_id FROM group_group_memberships WHERE supergroup_id = ${groupId}
      UNION
      SELECT gm.subgroup_id FROM group_group_memberships gm JOIN below b ON gm.supergroup_id = b.id
    )
    SELECT id FROM below WHERE id <> ${groupId} ORDER BY id`);
  return rows.map((r) => r.id);
}
