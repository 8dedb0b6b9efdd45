import type { Router } from 'express';
import Joi from 'joi';
import { fetchApiKey } from '../../../libs/domain/auth/fetch-api-key';
import type { AppContext } from '../../../libs/core/context';
import { nonexistentSubdomain } from '../../../libs/core/errors';
import { P } from '../../../libs/http/params';
import { open } from '../../../libs/http/route';

interface FetchApiKeyParams {
  username: string;
  password: string;
}

export function authRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/fetch_api_key',
    open<FetchApiKeyParams>(
      ctx,
      {
        username: P.string(Joi.string().required()),
        password: P.string(Joi.string().allow('').required()),
      },
      async ({ realm, params }) => {
        if (!realm) throw nonexistentSubdomain();
        return { ...(await fetchApiKey(ctx, realm, params.username, params.password)) };
      },
    ),
  );
}
