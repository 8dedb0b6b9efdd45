import type { User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { keyDoesNotExist } from './bot-storage-errors';

/** `DELETE /bot_storage`: removes `keys` (every key when null); any unknown key removes none. */
export async function removeBotStorage(db: Db, user: User, keys: string[] | null): Promise<void> {
  await db.$transaction(async (tx) => {
    if (keys === null) {
      await tx.botStorageData.deleteMany({ where: { botId: user.id } });
      return;
    }
    const unique = [...new Set(keys)];
    const removed = await tx.botStorageData.deleteMany({
      where: { botId: user.id, key: { in: unique } },
    });
    if (removed.count < unique.length) throw keyDoesNotExist();
  });
}
