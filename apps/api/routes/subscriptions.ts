import type { Router } from 'express';
import Joi from 'joi';
import { parseRetentionDays } from '../../../libs/domain/channels/validate-channel';
import type { AppContext } from '../../../libs/core/context';
import {
  groupSettingValueSchema,
  type GroupSettingValue,
} from '../../../libs/domain/groups/group-setting-value';
import {
  listSubscriptions,
  subscriptionStatus,
} from '../../../libs/domain/subscriptions/list-subscriptions';
import {
  CHANNEL_GROUP_SETTINGS,
  checkColors,
  subscribe,
  type ChannelGroupSetting,
} from '../../../libs/domain/subscriptions/subscribe';
import { unsubscribe } from '../../../libs/domain/subscriptions/unsubscribe';
import { updateSubscriptions } from '../../../libs/domain/subscriptions/update-subscriptions';
import {
  updateSubscriptionProperties,
  type PropertyChange,
} from '../../../libs/domain/subscriptions/update-properties';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

type SubscribeParams = {
  subscriptions: { name: string; color?: string; description?: string }[];
  principals?: (string | number)[];
  authorization_errors_fatal: boolean;
  announce: boolean;
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: string | number;
} & Partial<Record<ChannelGroupSetting, GroupSettingValue>>;

const principalsSchema = Joi.alternatives().try(
  Joi.array().items(Joi.number().integer()),
  Joi.array().items(Joi.string()),
);

const groupSettingParams = Object.fromEntries(
  CHANNEL_GROUP_SETTINGS.map((name) => [name, P.json(groupSettingValueSchema)]),
);

/** One requested subscription, as POST's `subscriptions` and PATCH's `add` carry it. */
const requestedSubscription = Joi.object({
  name: Joi.string().allow('').required(),
  color: Joi.string(),
  description: Joi.string().allow(''),
});

const subscribeSpec = {
  subscriptions: P.json(Joi.array().items(requestedSubscription).required()),
  principals: P.json(principalsSchema),
  authorization_errors_fatal: P.bool(Joi.boolean().default(true)),
  announce: P.bool(Joi.boolean().default(false)),
  invite_only: P.bool(Joi.boolean().default(false)),
  is_web_public: P.bool(Joi.boolean().default(false)),
  is_default_stream: P.bool(Joi.boolean().default(false)),
  history_public_to_subscribers: P.bool(),
  message_retention_days: P.jsonOrText(
    Joi.alternatives().try(Joi.number().integer(), Joi.string()),
  ),
  ...groupSettingParams,
};

export function subscriptionRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/users/me/subscriptions',
    authed<{ include_subscribers: boolean }>(
      ctx,
      { include_subscribers: P.bool(Joi.boolean().default(false)) },
      async ({ user, params }) => ({
        subscriptions: await listSubscriptions(ctx.db, user, {
          includeSubscribers: params.include_subscribers,
        }),
      }),
    ),
  );
  router.post(
    '/users/me/subscriptions',
    authed<SubscribeParams>(ctx, subscribeSpec, async ({ user, realm, params }) => {
      const groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingValue>> = {};
      for (const name of CHANNEL_GROUP_SETTINGS) {
        if (params[name] !== undefined) groupSettings[name] = params[name];
      }
      checkColors(params.subscriptions, 'subscriptions');
      return {
        ...(await subscribe(ctx, {
          actor: user,
          realm,
          subscriptions: params.subscriptions,
          principals: params.principals,
          authorizationErrorsFatal: params.authorization_errors_fatal,
          announce: params.announce,
          inviteOnly: params.invite_only,
          isWebPublic: params.is_web_public,
          isDefaultStream: params.is_default_stream,
          historyPublicToSubscribers: params.history_public_to_subscribers,
          messageRetentionDays:
            params.message_retention_days === undefined
              ? undefined
              : parseRetentionDays(params.message_retention_days),
          groupSettings,
        })),
      };
    }),
  );
  router.delete(
    '/users/me/subscriptions',
    authed<{ subscriptions: string[]; principals?: (string | number)[] }>(
      ctx,
      {
        subscriptions: P.json(Joi.array().items(Joi.string()).required()),
        principals: P.json(principalsSchema),
      },
      async ({ user, realm, params }) => ({
        ...(await unsubscribe(ctx, {
          actor: user,
          realm,
          names: params.subscriptions,
          principals: params.principals,
        })),
      }),
    ),
  );
  router.patch(
    '/users/me/subscriptions',
    authed<{ add: { name: string; color?: string; description?: string }[]; delete: string[] }>(
      ctx,
      {
        add: P.json(Joi.array().items(requestedSubscription).default([])),
        delete: P.json(Joi.array().items(Joi.string()).default([])),
      },
      async ({ user, realm, params }) => ({
        ...(await updateSubscriptions(ctx, {
          actor: user,
          realm,
          add: params.add,
          delete: params.delete,
        })),
      }),
    ),
  );
  router.post(
    '/users/me/subscriptions/properties',
    authed<{ subscription_data: PropertyChange[] }>(
      ctx,
      {
        subscription_data: P.json(
          Joi.array()
            .items(
              Joi.object({
                stream_id: Joi.number().integer().required(),
                property: Joi.string().required(),
                value: Joi.alternatives().try(Joi.boolean().strict(), Joi.string()).required(),
              }),
            )
            .required(),
        ),
      },
      async ({ user, realm, params }) => {
        await updateSubscriptionProperties(ctx, {
          actor: user,
          realm,
          changes: params.subscription_data,
        });
      },
    ),
  );
  router.get(
    '/users/:user_id/subscriptions/:stream_id',
    authed<{ user_id: number; stream_id: number }>(
      ctx,
      {
        user_id: P.int(Joi.number().integer().required()),
        stream_id: P.int(Joi.number().integer().required()),
      },
      async ({ user, realm, params }) => ({
        is_subscribed: await subscriptionStatus(
          ctx.db,
          user,
          realm,
          params.user_id,
          params.stream_id,
        ),
      }),
    ),
  );
}
