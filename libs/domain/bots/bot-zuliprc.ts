import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { realmUrl } from '../realms/realm-url';
import { decryptApiKey } from '../users/api-keys';
import { BotType } from '../users/roles';
import { findAdministrableBot } from './find-bot';

/** The bot's downloadable configuration file; outgoing-webhook bots also get their `token`. */
export function zuliprcText(
  ctx: AppContext,
  realm: Pick<Realm, 'stringId'>,
  bot: Pick<User, 'email' | 'apiKeyCiphertext' | 'botType'>,
  serviceToken: string | null,
): string {
  const apiKey = decryptApiKey(bot.apiKeyCiphertext, ctx.config.secretKey);
  const lines = [
    '[api]',
    `email=${bot.email}`,
    `key=${apiKey}`,
    `site=${realmUrl(realm.stringId, ctx.config)}`,
  ];
  if (bot.botType === BotType.OUTGOING_WEBHOOK && serviceToken) lines.push(`token=${serviceToken}`);
  return `${lines.join('\n')}\n`;
}

export async function botZuliprc(
  ctx: AppContext,
  actor: User,
  realm: Realm,
  botId: number,
): Promise<string> {
  const bot = await findAdministrableBot(ctx.db, actor, botId);
  return zuliprcText(ctx, realm, bot, bot.services[0]?.token ?? null);
}
