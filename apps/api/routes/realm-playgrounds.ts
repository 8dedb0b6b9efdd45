import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import {
  addPlayground,
  MAX_PYGMENTS_LANGUAGE_LENGTH,
  removePlayground,
} from '../../../libs/domain/playgrounds/playgrounds';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface PlaygroundParams {
  name: string;
  pygments_language: string;
  url_template: string;
}

export function realmPlaygroundRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/realm/playgrounds',
    authed<PlaygroundParams>(
      ctx,
      {
        name: P.string(Joi.string().allow('').required()),
        pygments_language: P.string(
          Joi.string().allow('').max(MAX_PYGMENTS_LANGUAGE_LENGTH).required(),
        ),
        url_template: P.string(Joi.string().allow('').required()),
      },
      async ({ user, realm, params }) => ({
        id: await addPlayground(ctx, {
          actor: user,
          realm,
          name: params.name,
          pygmentsLanguage: params.pygments_language,
          urlTemplate: params.url_template,
        }),
      }),
    ),
  );
  router.delete(
    '/realm/playgrounds/:playground_id',
    authed<{ playground_id: number }>(
      ctx,
      { playground_id: P.int(Joi.number().integer().required()) },
      async ({ user, realm, params }) => {
        await removePlayground(ctx, { actor: user, realm, id: params.playground_id });
      },
    ),
  );
}
