import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/domain/context';
import { getUser, listUsers } from '../../../libs/domain/users/list-users';
import { ownUser } from '../../../libs/domain/users/own-user';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface ListUsersParams {
  client_gravatar: boolean;
  include_custom_profile_fields: boolean;
}

interface GetUserParams extends ListUsersParams {
  user_id: number;
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
    authed<ListUsersParams>(ctx, listSpec, async ({ user, params }) => ({
      members: await listUsers(ctx.db, {
        viewer: user,
        clientGravatar: params.client_gravatar,
        includeCustomProfileFields: params.include_custom_profile_fields,
      }),
    })),
  );
  router.get(
    '/users/:user_id',
    authed<GetUserParams>(
      ctx,
      { ...listSpec, user_id: P.int(Joi.number().integer().required()) },
      async ({ user, params }) => ({
        user: await getUser(ctx.db, params.user_id, {
          viewer: user,
          clientGravatar: params.client_gravatar,
          includeCustomProfileFields: params.include_custom_profile_fields,
        }),
      }),
    ),
  );
}
