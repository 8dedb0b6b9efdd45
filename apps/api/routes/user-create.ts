import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { createAccount } from '../../../libs/domain/user-accounts/create-account';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface CreateUserParams {
  email: string;
  password: string;
  full_name: string;
}

export function userCreateRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/users',
    authed<CreateUserParams>(
      ctx,
      {
        email: P.string(Joi.string().allow('').required()),
        password: P.string(Joi.string().allow('').required()),
        full_name: P.string(Joi.string().allow('').required()),
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
