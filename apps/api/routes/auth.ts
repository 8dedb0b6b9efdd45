import type { Router } from 'express';
import Joi from 'joi';
import { dummyPasswordHash, fetchApiKey } from '../../../libs/domain/auth/fetch-api-key';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { nonexistentSubdomain } from '../../../libs/core/errors';
import { open } from '../../../libs/http/route';

export function authRoutes(router: Router, ctx: AppContext): void {
  // Hashed at startup, so the first check of a missing account costs no more than later ones.
  void dummyPasswordHash(ctx.config.bcryptRounds);
  router.post(
    '/fetch_api_key',
    open(
      ctx,
      { username: P.string(Joi.string()).required(), password: P.string().required() },
      async ({ realm, params }) => {
        if (!realm) throw nonexistentSubdomain();
        return { ...(await fetchApiKey(ctx, realm, params.username, params.password)) };
      },
    ),
  );
}
