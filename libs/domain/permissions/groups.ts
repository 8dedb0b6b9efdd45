import { Prisma } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { systemGroupIds } from '../groups/system-groups';

/**
 * Group membership is recursive (subgroups of subgroups); these queries resolve it in SQL with a
 * recursive CTE. UNION (not UNION ALL) makes a cycle terminate.
 */
export async function isUserInGroup(
  db: Db | Tx,
  userId: number,
  groupId: number,
): Promise<boolean> {
  const rows = await db.$queryRaw<{ found: boolean }[]>(Prisma.sql`
    WITH RECURSIVE groups(id) AS (
      SELECT ${groupId}::int
      UNION
      SELECT gm.subgroup_id FROM group_group_memberships gm JOIN groups g ON gm.supergroup_id = g.id
    )
    SELECT EXISTS (
      SELECT 1 FROM user_group_memberships m JOIN groups g ON m.user_group_id = g.id
      WHERE m.user_id = ${userId}
    ) AS found`);
  return rows[0]?.found ?? false;
}

/**
 * Each organization's `role:everyone` group, by database client. Every user of an organization is
 * in it (each is a direct member of their role's system group, and those are nested in it; only
 * role changes manage them), and system groups never change once made, so a client asks once per
 * organization. Keyed by client so that processes with several databases (tests) never mix their
 * organizations; a transaction's client is new each time and asks every time.
 */
const everyoneGroups = new WeakMap<Db | Tx, Map<number, Promise<number | null>>>();

export function everyoneGroupId(db: Db | Tx, realmId: number): Promise<number | null> {
  let byRealm = everyoneGroups.get(db);
  if (!byRealm) everyoneGroups.set(db, (byRealm = new Map()));
  let id = byRealm.get(realmId);
  if (!id) {
    const asked = systemGroupIds(db, realmId).then((ids) => ids['role:everyone'] ?? null);
    // A failed read is not remembered.
    asked.catch(() => byRealm.delete(realmId));
    byRealm.set(realmId, (id = asked));
  }
  return id;
}

/** Which of `groupIds` the user belongs to (directly or through subgroups), in one query. */
export async function groupsContainingUser(
  db: Db | Tx,
  userId: number,
  groupIds: number[],
): Promise<Set<number>> {
  if (groupIds.length === 0) return new Set();
  const rows = await db.$queryRaw<{ root: number }[]>(Prisma.sql`
    WITH RECURSIVE groups(root, id) AS (
      SELECT r, r FROM unnest(${groupIds}::int[]) AS r
      UNION
      SELECT g.root, gm.subgroup_id FROM group_group_memberships gm JOIN groups g ON gm.supergroup_id = g.id
    )
    SELECT DISTINCT g.root FROM groups g
    JOIN user_group_memberships m ON m.user_group_id = g.id
    WHERE m.user_id = ${userId}`);
  return new Set(rows.map((r) => r.root));
}

/** Every user in a group, through subgroups too (e.g. to expand a group mention). */
export async function recursiveGroupMemberIds(db: Db | Tx, groupId: number): Promise<number[]> {
  const rows = await db.$queryRaw<{ user_id: number }[]>(Prisma.sql`
    WITH RECURSIVE groups(id) AS (
      SELECT ${groupId}::int
      UNION
      SELECT gm.subgroup_id FROM group_group_memberships gm JOIN groups g ON gm.supergroup_id = g.id
    )
    SELECT DISTINCT m.user_id FROM user_group_memberships m JOIN groups g ON m.user_group_id = g.id
    ORDER BY m.user_id`);
  return rows.map((r) => r.user_id);
}
