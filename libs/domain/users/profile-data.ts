import type { Db, Tx } from '../../db/client';
import type { ProfileData } from './format-user';

/** Custom profile field values of many users in one query, keyed by user ID. */
export async function loadProfileData(
  db: Db | Tx,
  userIds: number[],
): Promise<Map<number, ProfileData>> {
  const result = new Map<number, ProfileData>(userIds.map((id) => [id, {}]));
  if (userIds.length === 0) return result;
  const rows = await db.customProfileFieldValue.findMany({
    where: { userId: { in: userIds } },
    select: { userId: true, fieldId: true, value: true, renderedValue: true },
  });
  for (const row of rows) {
    const entry: ProfileData[string] = { value: row.value };
    if (row.renderedValue !== null) entry.rendered_value = row.renderedValue;
    result.get(row.userId)![String(row.fieldId)] = entry;
  }
  return result;
}
