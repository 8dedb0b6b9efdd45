import type { Db, Tx } from '../../db/client';

export async function listAlertWords(db: Db | Tx, userId: number): Promise<string[]> {
  const rows = await db.alertWord.findMany({
    where: { userId },
    orderBy: { id: 'asc' },
    select: { word: true },
  });
  return rows.map((r) => r.word);
}
