import type { Service, User } from '../../../generated/prisma/client';
import type { ApiBot, ApiBotRecord, ApiBotService } from '../../protocol/records';
import { decryptApiKey } from '../users/api-keys';
import { avatarUrl } from '../users/avatar';
import { BotType } from '../users/roles';

export type { ApiBot, ApiBotRecord, ApiBotService };

export type BotWithRelations = User & {
  services: Service[];
  botOwner: Pick<User, 'email'> | null;
  defaultSendingStream: { name: string } | null;
  defaultEventsRegisterStream: { name: string } | null;
};

export const botInclude = {
  services: true,
  botOwner: { select: { email: true } },
  defaultSendingStream: { select: { name: true } },
  defaultEventsRegisterStream: { select: { name: true } },
} as const;

export function formatBot(bot: BotWithRelations, secretKey: string): ApiBot {
  return {
    user_id: bot.id,
    username: bot.email,
    email: bot.email,
    full_name: bot.fullName,
    bot_type: bot.botType,
    is_active: bot.isActive,
    api_key: decryptApiKey(bot.apiKeyCiphertext, secretKey),
    avatar_url: avatarUrl(bot),
    default_sending_stream: bot.defaultSendingStream?.name ?? null,
    default_events_register_stream: bot.defaultEventsRegisterStream?.name ?? null,
    default_all_public_streams: bot.defaultAllPublicStreams,
    owner: bot.botOwner?.email ?? null,
    owner_id: bot.botOwnerId,
    services:
      bot.botType === BotType.OUTGOING_WEBHOOK
        ? bot.services.map((s) => ({ base_url: s.baseUrl, interface: s.interface, token: s.token }))
        : bot.botType === BotType.EMBEDDED
          ? bot.services.map((s) => ({ config_data: {}, service_name: s.name }))
          : [],
  };
}

export function formatBotRecord(bot: BotWithRelations, secretKey: string): ApiBotRecord {
  const { username: _username, owner: _owner, ...record } = formatBot(bot, secretKey);
  return record;
}
