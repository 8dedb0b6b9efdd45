import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { getUser } from '../../../libs/domain/users/get-user';
import { listUsers } from '../../../libs/domain/users/list-users';
import { ownUser } from '../../../libs/domain/users/own-user';
import { userIdFromPathSegment } from '../../../libs/domain/users/lookup-user';
import { authed } from '../../../libs/http/route';

const listSpec = {
  client_gravatar: P.bool().default(true),
  include_custom_profile_fields: P.bool().default(false),
};

export function userRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/users/me',
    authed(ctx, {}, async ({ user }) => ({ ...(await ownUser(ctx, user)) })),
  );
  router.get(
    '/users',
    authed(ctx, listSpec, async ({ user, realm, params }) => ({
      members: await listUsers(ctx, {
        viewer: user,
        realm,
        clientGravatar: params.client_gravatar,
        includeCustomProfileFields: params.include_custom_profile_fields,
      }),
    })),
  );
  router.get(
    '/users/:user_id',
    authed(
      ctx,
      // A user ID or, for `GET /users/{email}`, an email address.
      { ...listSpec, user_id: P.string(Joi.string()).required() },
      async ({ user, params }) => ({
        user: await getUser(
          ctx.db,
          await userIdFromPathSegment(ctx.db, user.realmId, params.user_id),
          {
            viewer: user,
            clientGravatar: params.client_gravatar,
            includeCustomProfileFields: params.include_custom_profile_fields,
          },
        ),
      }),
    ),
  );
}
