import type { User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { NOTIFICATION_BOT_NAME } from '../realms/create-realm';

/** The organization's notification bot, which sends the server's own direct messages. */
export async function findNotificationBot(db: Db | Tx, realmId: number): Promise<User | null> {
  return db.user.findFirst({
    where: {
      realmId,
      isBot: true,
      fullName: NOTIFICATION_BOT_NAME,
      email: { startsWith: 'notification-bot@' },
    },
    orderBy: { id: 'asc' },
  });
}
