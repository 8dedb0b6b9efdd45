import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { getUser, listUsers } from '../../../libs/domain/users/list-users';
import { ownUser } from '../../../libs/domain/users/own-user';
import { userIdFromPathSegment } from '../../../libs/domain/users/lookup-user';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface ListUsersParams {
  client_gravatar: boolean;
  include_custom_profile_fields: boolean;
}

interface GetUserParams extends ListUsersParams {
  /** A user ID or, for `GET /users/{email}`, an email address. */
  user_id: string;
}

const listSpec = {
  client_gravatar: P.bool(Joi.boolean().default(true)),
  include_custom_profile_fields: P.bool(Joi.boolean().default(false)),
};

export function userRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/users/me',
    authed(ctx, {}, async ({ user }) => ({ ...(await ownUser(ctx.db, user)) })),
  );
  router.get(
    '/users',
    authed<ListUsersParams>(ctx, listSpec, async ({ user, realm, params }) => ({
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
    authed<GetUserParams>(
      ctx,
      { ...listSpec, user_id: P.string(Joi.string().required()) },
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
