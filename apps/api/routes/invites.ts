import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import type { InviteTargets } from '../../../libs/domain/invitations/invite-rules';
import { createMultiuseInvite } from '../../../libs/domain/invitations/create-multiuse-invite';
import { inviteUsers } from '../../../libs/domain/invitations/invite-users';
import { listInvites } from '../../../libs/domain/invitations/list-invites';
import { resendInvite } from '../../../libs/domain/invitations/resend-invite';
import { revokeInvite } from '../../../libs/domain/invitations/revoke-invite';
import { revokeMultiuseInvite } from '../../../libs/domain/invitations/revoke-multiuse-invite';
import { redeemInvite } from '../../../libs/domain/invitations/redeem-invite';
import { Role } from '../../../libs/domain/users/roles';
import { nonexistentSubdomain } from '../../../libs/core/errors';
import type { ParamsOf } from '../../../libs/http/params';
import { authed, open } from '../../../libs/http/route';

const ids = () => P.array(P.int());

const targetSpec = {
  invite_expires_in_minutes: P.jsonOrText(P.int(Joi.number().integer().min(1)).nullable()),
  invite_as: P.int().default(Role.MEMBER),
  group_ids: ids().default([]),
  include_realm_default_subscriptions: P.bool().default(false),
};

const targetsOf = (p: ParamsOf<typeof targetSpec>, streamIds: number[]): InviteTargets => ({
  role: p.invite_as,
  streamIds,
  groupIds: p.group_ids,
  includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
});

const inviteId = { invite_id: P.int().required() };

export function inviteRoutes(router: Router, ctx: AppContext): void {
  invitationCreateRoutes(router, ctx);
  invitationUseRoutes(router, ctx);
}

/** Listing and sending invitations. */
function invitationCreateRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/invites',
    authed(ctx, {}, async ({ user, realm }) => ({ invites: await listInvites(ctx, user, realm) })),
  );
  router.post(
    '/invites',
    authed(
      ctx,
      {
        ...targetSpec,
        invitee_emails: P.string().required(),
        stream_ids: ids().required(),
        notify_referrer_on_join: P.bool().default(true),
      },
      async ({ user, realm, params }) => {
        await inviteUsers(ctx, {
          actor: user,
          realm,
          inviteeEmails: params.invitee_emails,
          expiresInMinutes: params.invite_expires_in_minutes,
          targets: targetsOf(params, params.stream_ids),
          notifyReferrerOnJoin: params.notify_referrer_on_join,
        });
      },
    ),
  );
  router.post(
    '/invites/multiuse',
    authed(
      ctx,
      { ...targetSpec, stream_ids: ids().default([]) },
      async ({ user, realm, params }) => ({
        invite_link: await createMultiuseInvite(ctx, {
          actor: user,
          realm,
          expiresInMinutes: params.invite_expires_in_minutes,
          targets: targetsOf(params, params.stream_ids),
        }),
      }),
    ),
  );
  router.delete(
    '/invites/multiuse/:invite_id',
    authed(ctx, inviteId, async ({ user, realm, params }) => {
      await revokeMultiuseInvite(ctx, user, realm, params.invite_id);
    }),
  );
}

/** Redeeming, revoking and resending invitations. */
function invitationUseRoutes(router: Router, ctx: AppContext): void {
  // Our own sign-up endpoint (not in Zulip's API): redeems an invitation's confirmation key.
  router.post(
    '/invites/redeem',
    open(
      ctx,
      {
        key: P.string(Joi.string()).required(),
        email: P.string(Joi.string()),
        full_name: P.string(Joi.string()).required(),
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
    authed(ctx, inviteId, async ({ user, realm, params }) => {
      await revokeInvite(ctx, user, realm, params.invite_id);
    }),
  );
  router.post(
    '/invites/:invite_id/resend',
    authed(ctx, inviteId, async ({ user, realm, params }) => {
      await resendInvite(ctx, user, realm, params.invite_id);
    }),
  );
}
