import type { User } from '../../../generated/prisma/client';
import type { Config } from '../../core/config';
import type { Db, Tx } from '../../db/client';
import { checkAccess, Permission } from '../permissions/access';
import { botInclude, formatBot, type ApiBot } from './format-bot';

/**
 * The bots the viewer administers: their own, or every bot of the organization for
 * administrators. `GET /bots` lists the active ones; register's `realm_bots` all of them.
 */
export async function listBots(
  ctx: { db: Db | Tx; config: Pick<Config, 'secretKey'> },
  viewer: User,
  options: { includeInactive?: boolean } = {},
): Promise<ApiBot[]> {
  const bots = await ctx.db.user.findMany({
    where: {
      realmId: viewer.realmId,
      isBot: true,
      isSystemBot: false,
      ...(options.includeInactive ? {} : { isActive: true }),
    },
    include: botInclude,
    orderBy: { id: 'asc' },
  });
  const administered = await checkAccess(ctx.db, {
    auth: { user: viewer },
    permission: Permission.BotAdminister,
    ids: bots.map((b) => b.id),
  });
  return bots.filter((b) => administered.has(b.id)).map((b) => formatBot(b, ctx.config.secretKey));
}
