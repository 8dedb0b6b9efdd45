import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { createAccount } from '../../../libs/domain/users/create-account';
import { authed } from '../../../libs/http/route';

export function userCreateRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/users',
    authed(
      ctx,
      {
        email: P.string().required(),
        password: P.string().required(),
        full_name: P.string().required(),
      },
      async ({ user, realm, params }) => ({
        user_id: await createAccount(ctx, {
          actor: user,
          realm,
          email: params.email,
          password: params.password,
          fullName: params.full_name,
        }),
      }),
    ),
  );
}
