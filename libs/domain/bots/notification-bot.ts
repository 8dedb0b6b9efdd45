import type { User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';

/** The organization's notification bot, the system bot that sends the server's own messages. */
export async function findNotificationBot(db: Db | Tx, realmId: number): Promise<User | null> {
  return db.user.findFirst({
    where: { realmId, isSystemBot: true },
    orderBy: { id: 'asc' },
  });
}
