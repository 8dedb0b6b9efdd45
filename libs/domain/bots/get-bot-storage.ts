import type { User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { keyDoesNotExist } from './bot-storage-errors';

/** `GET /bot_storage`: the values of `keys` (every key when null); an unknown key is an error. */
export async function getBotStorage(
  db: Db,
  user: User,
  keys: string[] | null,
): Promise<Record<string, string>> {
  const rows = await db.botStorageData.findMany({
    where: { botId: user.id, ...(keys === null ? {} : { key: { in: keys } }) },
    select: { key: true, value: true },
    orderBy: { id: 'asc' },
  });
  const values = new Map(rows.map((r) => [r.key, r.value]));
  const out: Record<string, string> = {};
  for (const key of keys ?? rows.map((r) => r.key)) {
    const value = values.get(key);
    if (value === undefined) throw keyDoesNotExist();
    out[key] = value;
  }
  return out;
}
