import type { Db, Tx } from '../../db/client';
import type { ProfileData } from './format-user';

/** A custom profile field's value as Zulip shows it, with its HTML when the field renders Markdown. */
export function profileEntry(value: string, renderedValue: string | null): ProfileData[string] {
  return renderedValue === null ? { value } : { value, rendered_value: renderedValue };
}

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
    result.get(row.userId)![String(row.fieldId)] = profileEntry(row.value, row.renderedValue);
  }
  return result;
}
