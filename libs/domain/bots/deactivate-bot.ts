import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { usersWhoCanAccess } from '../permissions/users';
import { setActive } from '../users/set-active';
import { botAdministratorIds } from '../permissions/bots';
import { findAdministrableBot } from './find-bot';
import { realmBotEvent } from '../../protocol/events/realm-bot';
import { realmUserEvent } from '../../protocol/events/realm-user';

/** `DELETE /bots/{id}`: deactivates the bot (its rows stay, as in Zulip). */
export async function deactivateBot(ctx: AppContext, actor: User, botId: number): Promise<void> {
  await inTransaction(ctx, async (tx, events) => {
    const bot = await findAdministrableBot(tx, actor, botId);
    await setActive(tx, [bot.id], false);
    // Zulip's form since feature level 222: `realm_bots` keeps the bot, inactive.
    await events.emit(
      actor.realmId,
      realmBotEvent({ op: 'update', bot: { user_id: bot.id, is_active: false } }),
      [...(await botAdministratorIds(tx, actor.realmId, bot.botOwnerId))],
    );
    await events.emit(
      actor.realmId,
      realmUserEvent({ op: 'update', person: { user_id: bot.id, is_active: false } }),
      await usersWhoCanAccess(tx, bot),
    );
  });
}
