import type { User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { Permission, requireAccess } from '../permissions/access';
import { botInclude, type BotWithRelations } from './format-bot';

/**
 * The bot `botId` of the caller's organization, which the caller may administer. System bots are
 * no one's to administer: as in Zulip, where they belong to no organization, they are not found.
 */
export async function findAdministrableBot(
  db: Db | Tx,
  actor: User,
  botId: number,
  options: { includeInactive?: boolean } = {},
): Promise<BotWithRelations> {
  const bot = await db.user.findFirst({
    where: {
      id: botId,
      realmId: actor.realmId,
      isBot: true,
      isSystemBot: false,
      ...(options.includeInactive ? {} : { isActive: true }),
    },
    include: botInclude,
  });
  if (!bot) throw badRequest('No such bot');
  await requireAccess(db, {
    auth: { user: actor },
    permission: Permission.BotAdminister,
    ids: [bot.id],
  });
  return bot;
}
