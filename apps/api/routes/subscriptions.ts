import type { Router } from 'express';
import Joi from 'joi';
import {
  parseRetentionDays,
  retentionDaysParam,
} from '../../../libs/domain/channels/validate-channel';
import type { AppContext } from '../../../libs/core/context';
import { pickDefined } from '../../../libs/core/pick';
import { P } from '../../../libs/core/schema';
import { groupSettingValue } from '../../../libs/domain/groups/group-setting-value';
import {
  listSubscriptions,
  subscriptionStatus,
} from '../../../libs/domain/subscriptions/list-subscriptions';
import {
  CHANNEL_GROUP_SETTINGS,
  checkColors,
  requestedSubscription,
  subscribe,
} from '../../../libs/domain/subscriptions/subscribe';
import { unsubscribe } from '../../../libs/domain/subscriptions/unsubscribe';
import { updateSubscriptions } from '../../../libs/domain/subscriptions/update-subscriptions';
import {
  propertyChange,
  updateSubscriptionProperties,
} from '../../../libs/domain/subscriptions/update-properties';
import { authed } from '../../../libs/http/route';

const principals = P.alternatives(P.array(P.int()), P.array(P.string(Joi.string())));

const subscribeSpec = {
  subscriptions: P.array(requestedSubscription).required(),
  principals,
  authorization_errors_fatal: P.bool().default(true),
  announce: P.bool().default(false),
  invite_only: P.bool().default(false),
  is_web_public: P.bool().default(false),
  is_default_stream: P.bool().default(false),
  history_public_to_subscribers: P.bool(),
  message_retention_days: retentionDaysParam,
  ...P.each(CHANNEL_GROUP_SETTINGS, groupSettingValue),
};

export function subscriptionRoutes(router: Router, ctx: AppContext): void {
  subscriptionChangeRoutes(router, ctx);
  subscriptionPropertyRoutes(router, ctx);
}

/** Listing, adding and removing subscriptions. */
function subscriptionChangeRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/users/me/subscriptions',
    authed(ctx, { include_subscribers: P.bool().default(false) }, async ({ user, params }) => ({
      subscriptions: await listSubscriptions(ctx.db, user, {
        includeSubscribers: params.include_subscribers,
      }),
    })),
  );
  router.post(
    '/users/me/subscriptions',
    authed(ctx, subscribeSpec, async ({ user, realm, params }) => {
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
          groupSettings: pickDefined(params, CHANNEL_GROUP_SETTINGS),
        })),
      };
    }),
  );
  router.delete(
    '/users/me/subscriptions',
    authed(
      ctx,
      { subscriptions: P.array(P.string(Joi.string())).required(), principals },
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
}

/** Subscription properties, and one user's subscription status. */
function subscriptionPropertyRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/users/me/subscriptions',
    authed(
      ctx,
      {
        add: P.array(requestedSubscription).default([]),
        delete: P.array(P.string(Joi.string())).default([]),
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
    authed(
      ctx,
      { subscription_data: P.array(propertyChange).required() },
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
    authed(
      ctx,
      { user_id: P.int().required(), stream_id: P.int().required() },
      async ({ user, realm, params }) => ({
        is_subscribed: await subscriptionStatus(ctx.db, {
          viewer: user,
          realm,
          userId: params.user_id,
          streamId: params.stream_id,
        }),
      }),
    ),
  );
}
