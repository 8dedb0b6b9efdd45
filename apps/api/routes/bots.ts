import type { Router } from 'express';
import Joi from 'joi';
import { getBotStorage } from '../../../libs/domain/bots/get-bot-storage';
import { putBotStorage } from '../../../libs/domain/bots/put-bot-storage';
import { removeBotStorage } from '../../../libs/domain/bots/remove-bot-storage';
import { botZuliprc } from '../../../libs/domain/bots/bot-zuliprc';
import { createBot } from '../../../libs/domain/bots/create-bot';
import { deactivateBot } from '../../../libs/domain/bots/deactivate-bot';
import { listBots } from '../../../libs/domain/bots/list-bots';
import { regenerateBotApiKey } from '../../../libs/domain/bots/regenerate-bot-api-key';
import { updateBot } from '../../../libs/domain/bots/update-bot';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { avatarUrl } from '../../../libs/domain/users/avatar';
import { authed } from '../../../libs/http/route';

const botId = { bot_id: P.int().required() };

const storageKeys = { keys: P.array(P.string(Joi.string())) };

export function botRoutes(router: Router, ctx: AppContext): void {
  botAccountRoutes(router, ctx);
  botStorageRoutes(router, ctx);
}

/** Bot accounts: creating, listing, changing, deactivating, API keys. */
function botAccountRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/bots',
    authed(
      ctx,
      {
        full_name: P.string(Joi.string()).required(),
        short_name: P.string(Joi.string()).required(),
        bot_type: P.int().default(1),
        payload_url: P.jsonOrText(P.string(Joi.string())),
        service_name: P.jsonOrText(P.string()),
        // Zulip's own web client calls it `interface_type`; the spec says `interface`.
        interface: P.int(),
        interface_type: P.int(),
      },
      async ({ user, realm, params }) => {
        const { bot, apiKey } = await createBot(ctx, {
          realm,
          actor: user,
          fullName: params.full_name,
          shortName: params.short_name,
          botType: params.bot_type,
          payloadUrl: params.payload_url,
          serviceName: params.service_name,
          interface: params.interface ?? params.interface_type,
        });
        return {
          user_id: bot.id,
          api_key: apiKey,
          avatar_url: avatarUrl(bot),
          default_sending_stream: null,
          default_events_register_stream: null,
          default_all_public_streams: false,
        };
      },
    ),
  );
  router.get(
    '/bots',
    authed(ctx, {}, async ({ user }) => ({ bots: await listBots(ctx, user) })),
  );
  router.patch(
    '/bots/:bot_id',
    authed(
      ctx,
      {
        ...botId,
        full_name: P.string(Joi.string()),
        bot_owner_id: P.int(),
        service_payload_url: P.jsonOrText(P.string(Joi.string())),
        service_interface: P.int(),
      },
      async ({ user, params }) =>
        updateBot(ctx, user, params.bot_id, {
          fullName: params.full_name,
          botOwnerId: params.bot_owner_id,
          servicePayloadUrl: params.service_payload_url,
          serviceInterface: params.service_interface,
        }),
    ),
  );
  router.delete(
    '/bots/:bot_id',
    authed(ctx, botId, async ({ user, params }) => {
      await deactivateBot(ctx, user, params.bot_id);
    }),
  );
  router.post(
    '/bots/:bot_id/api_key/regenerate',
    authed(ctx, botId, async ({ user, params }) => ({
      api_key: await regenerateBotApiKey(ctx, user, params.bot_id),
    })),
  );
}

/** Bot storage and a bot's zuliprc. */
function botStorageRoutes(router: Router, ctx: AppContext): void {
  // Bot storage, for the bot runner's state handler; Zulip serves it to any account.
  router.put(
    '/bot_storage',
    authed(ctx, { storage: P.record(P.string()).required() }, async ({ user, params }) => {
      await putBotStorage(ctx.db, user, params.storage);
    }),
  );
  router.get(
    '/bot_storage',
    authed(ctx, storageKeys, async ({ user, params }) => ({
      storage: await getBotStorage(ctx.db, user, params.keys ?? null),
    })),
  );
  router.delete(
    '/bot_storage',
    authed(ctx, storageKeys, async ({ user, params }) => {
      await removeBotStorage(ctx.db, user, params.keys ?? null);
    }),
  );
  router.get(
    '/bots/:bot_id/zuliprc',
    authed(ctx, botId, async ({ user, realm, params }) => ({
      zuliprc: await botZuliprc(ctx, user, realm, params.bot_id),
    })),
  );
}
