import type { Router } from 'express';
import Joi from 'joi';
import { archiveChannel } from '../../../libs/domain/channels/archive-channel';
import { changeDefaultChannel } from '../../../libs/domain/channels/change-default-channel';
import { listDefaultChannels } from '../../../libs/domain/channels/list-default-channels';
import { formatChannel } from '../../../libs/domain/channels/format-channel';
import {
  accessibleChannel,
  channelIdByName,
  channelMembers,
  listChannels,
} from '../../../libs/domain/channels/list-channels';
import { updateChannel } from '../../../libs/domain/channels/update-channel';
import {
  parseRetentionDays,
  retentionDaysParam,
} from '../../../libs/domain/channels/validate-channel';
import type { AppContext } from '../../../libs/core/context';
import { pickDefined } from '../../../libs/core/pick';
import { P } from '../../../libs/core/schema';
import { groupSettingUpdate } from '../../../libs/domain/groups/group-setting-value';
import { CHANNEL_GROUP_SETTINGS } from '../../../libs/domain/subscriptions/subscribe';
import { authed } from '../../../libs/http/route';

const flag = (dflt: boolean) => P.bool().default(dflt);
const streamId = { stream_id: P.int().required() };

export function channelRoutes(router: Router, ctx: AppContext): void {
  channelReadRoutes(router, ctx);
  channelChangeRoutes(router, ctx);
}

/** Reading channels and their subscribers. */
function channelReadRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/streams',
    authed(
      ctx,
      {
        include_public: flag(true),
        include_web_public: flag(false),
        include_subscribed: flag(true),
        exclude_archived: flag(true),
        include_all: flag(false),
        include_default: flag(false),
        include_owner_subscribed: flag(false),
        include_can_access_content: flag(false),
        include_all_active: flag(false),
      },
      async ({ user, realm, params: p }) => ({
        streams: await listChannels(ctx.db, user, realm, {
          includePublic: p.include_public,
          includeWebPublic: p.include_web_public,
          includeSubscribed: p.include_subscribed,
          excludeArchived: p.exclude_archived,
          includeAll: p.include_all,
          includeDefault: p.include_default,
          includeOwnerSubscribed: p.include_owner_subscribed,
          includeCanAccessContent: p.include_can_access_content,
          includeAllActive: p.include_all_active,
        }),
      }),
    ),
  );
  router.get(
    '/streams/:stream_id',
    authed(ctx, streamId, async ({ user, realm, params }) => ({
      stream: await formatChannel(
        ctx.db,
        await accessibleChannel(ctx.db, user, realm, params.stream_id),
      ),
    })),
  );
  router.get(
    '/get_stream_id',
    authed(ctx, { stream: P.string(Joi.string()).required() }, async ({ user, realm, params }) => ({
      stream_id: await channelIdByName(ctx.db, user, realm, params.stream),
    })),
  );
  router.get(
    '/streams/:stream_id/members',
    authed(ctx, streamId, async ({ user, realm, params }) => ({
      subscribers: await channelMembers(ctx.db, user, realm, params.stream_id),
    })),
  );
}

/** Changing and archiving channels, and the default channels. */
function channelChangeRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/streams/:stream_id',
    authed(
      ctx,
      {
        ...streamId,
        description: P.string(),
        new_name: P.string(),
        is_private: P.bool(),
        is_web_public: P.bool(),
        history_public_to_subscribers: P.bool(),
        is_default_stream: P.bool(),
        is_archived: P.bool(),
        message_retention_days: retentionDaysParam,
        ...P.each(CHANNEL_GROUP_SETTINGS, groupSettingUpdate),
      },
      async ({ user, realm, params }) => {
        await updateChannel(ctx, {
          actor: user,
          realm,
          streamId: params.stream_id,
          description: params.description,
          newName: params.new_name,
          isPrivate: params.is_private,
          isWebPublic: params.is_web_public,
          historyPublicToSubscribers: params.history_public_to_subscribers,
          isDefaultStream: params.is_default_stream,
          isArchived: params.is_archived,
          messageRetentionDays:
            params.message_retention_days === undefined
              ? undefined
              : parseRetentionDays(params.message_retention_days),
          groupSettings: pickDefined(params, CHANNEL_GROUP_SETTINGS),
        });
      },
    ),
  );
  router.delete(
    '/streams/:stream_id',
    authed(ctx, streamId, async ({ user, realm, params }) => {
      await archiveChannel(ctx, { actor: user, realm, streamId: params.stream_id });
    }),
  );
  router.get(
    '/default_streams',
    authed(ctx, {}, async ({ realm }) => ({
      default_streams: await listDefaultChannels(ctx.db, realm),
    })),
  );
  for (const [method, isDefault] of [
    ['post', true],
    ['delete', false],
  ] as const) {
    router[method](
      '/default_streams',
      authed(ctx, streamId, async ({ user, realm, params }) => {
        await changeDefaultChannel(ctx, {
          actor: user,
          realm,
          streamId: params.stream_id,
          isDefault,
        });
      }),
    );
  }
}
