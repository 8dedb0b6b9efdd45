import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import type { InviteTargets } from '../../../libs/domain/invitations/invite-rules';
import { createMultiuseInvite, inviteUsers } from '../../../libs/domain/invitations/invite-users';
import {
  listInvites,
  resendInvite,
  revokeInvite,
  revokeMultiuseInvite,
} from '../../../libs/domain/invitations/manage-invites';
import { redeemInvite } from '../../../libs/domain/invitations/redeem-invite';
import { Role } from '../../../libs/domain/users/roles';
import { nonexistentSubdomain } from '../../../libs/core/errors';
import { P } from '../../../libs/http/params';
import { authed, open } from '../../../libs/http/route';

interface TargetParams {
  invite_expires_in_minutes?: number | null;
  invite_as: number;
  stream_ids: number[];
  group_ids: number[];
  include_realm_default_subscriptions: boolean;
}

const ids = () => Joi.array().items(Joi.number().integer());

const targetSpec = {
  invite_expires_in_minutes: P.jsonOrText(Joi.number().integer().min(1).allow(null)),
  invite_as: P.int(Joi.number().integer().default(Role.MEMBER)),
  group_ids: P.json(ids().default([])),
  include_realm_default_subscriptions: P.bool(Joi.boolean().default(false)),
};

const targetsOf = (p: TargetParams): InviteTargets => ({
  role: p.invite_as,
  streamIds: p.stream_ids,
  groupIds: p.group_ids,
  includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
});

const inviteId = { invite_id: P.int(Joi.number().integer().required()) };

interface RedeemParams {
  key: string;
  email?: string;
  full_name: string;
  password?: string;
}

export function inviteRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/invites',
    authed(ctx, {}, async ({ user, realm }) => ({ invites: await listInvites(ctx, user, realm) })),
  );
  router.post(
    '/invites',
    authed<TargetParams & { invitee_emails: string; notify_referrer_on_join: boolean }>(
      ctx,
      {
        ...targetSpec,
        invitee_emails: P.string(Joi.string().allow('').required()),
        stream_ids: P.json(ids().required()),
        notify_referrer_on_join: P.bool(Joi.boolean().default(true)),
      },
      async ({ user, realm, params }) => {
        await inviteUsers(ctx, {
          actor: user,
          realm,
          inviteeEmails: params.invitee_emails,
          expiresInMinutes: params.invite_expires_in_minutes,
          targets: targetsOf(params),
          notifyReferrerOnJoin: params.notify_referrer_on_join,
        });
      },
    ),
  );
  router.post(
    '/invites/multiuse',
    authed<TargetParams>(
      ctx,
      { ...targetSpec, stream_ids: P.json(ids().default([])) },
      async ({ user, realm, params }) => ({
        invite_link: await createMultiuseInvite(ctx, {
          actor: user,
          realm,
          expiresInMinutes: params.invite_expires_in_minutes,
          targets: targetsOf(params),
        }),
      }),
    ),
  );
  router.delete(
    '/invites/multiuse/:invite_id',
    authed<{ invite_id: number }>(ctx, inviteId, async ({ user, realm, params }) => {
      await revokeMultiuseInvite(ctx, user, realm, params.invite_id);
    }),
  );
  // Our own sign-up endpoint (not in Zulip's API): redeems an invitation's confirmation key.
  router.post(
    '/invites/redeem',
    open<RedeemParams>(
      ctx,
      {
        key: P.string(Joi.string().required()),
        email: P.string(Joi.string()),
        full_name: P.string(Joi.string().required()),
        password: P.string(Joi.string()),
      },
      async ({ realm, params }) => {
        if (!realm) throw nonexistentSubdomain();
        return {
          ...(await redeemInvite(ctx, {
            realm,
            key: params.key,
            email: params.email,
            fullName: params.full_name,
            password: params.password,
          })),
        };
      },
    ),
  );
  router.delete(
    '/invites/:invite_id',
    authed<{ invite_id: number }>(ctx, inviteId, async ({ user, realm, params }) => {
      await revokeInvite(ctx, user, realm, params.invite_id);
    }),
  );
  router.post(
    '/invites/:invite_id/resend',
    authed<{ invite_id: number }>(ctx, inviteId, async ({ user, realm, params }) => {
      await resendInvite(ctx, user, realm, params.invite_id);
    }),
  );
}
