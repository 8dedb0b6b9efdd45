import type { User } from '../../../generated/prisma/client';
import type { AppContext } from '../context';
import { seesAllBots } from '../permissions/bots';
import { botInclude, formatBot, type ApiBot } from './format-bot';

/** `GET /bots`: the caller's active bots, or every active bot of the organization for administrators. */
export async function listBots(ctx: AppContext, viewer: User): Promise<ApiBot[]> {
  const bots = await ctx.db.user.findMany({
    where: {
      realmId: viewer.realmId,
      isBot: true,
      isActive: true,
      ...(seesAllBots(viewer) ? {} : { botOwnerId: viewer.id }),
    },
    include: botInclude,
    orderBy: { id: 'asc' },
  });
  return bots.map((b) => formatBot(b, ctx.config.secretKey));
}
