import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { newStoredApiKey } from '../users/api-keys';
import { botAdministratorIds } from '../permissions/bots';
import { findAdministrableBot } from './find-bot';
import { realmBotEvent } from '../../protocol/events/realm-bot';

/** `POST /bots/{id}/api_key/regenerate`: a new key; the old one stops working at once. */
export async function regenerateBotApiKey(
  ctx: AppContext,
  actor: User,
  botId: number,
): Promise<string> {
  return inTransaction(ctx, async (tx, events) => {
    const bot = await findAdministrableBot(tx, actor, botId);
    const { apiKey, stored } = newStoredApiKey(ctx.config.secretKey);
    await tx.user.update({ where: { id: bot.id }, data: stored });
    await events.emit(
      actor.realmId,
      realmBotEvent({ op: 'update', bot: { user_id: bot.id, api_key: apiKey } }),
      [...(await botAdministratorIds(tx, actor.realmId, bot.botOwnerId))],
    );
    return apiKey;
  });
}
