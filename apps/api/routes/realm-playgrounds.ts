import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import {
  addPlayground,
  MAX_PYGMENTS_LANGUAGE_LENGTH,
} from '../../../libs/domain/playgrounds/add-playground';
import { removePlayground } from '../../../libs/domain/playgrounds/remove-playground';
import { authed } from '../../../libs/http/route';

export function realmPlaygroundRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/realm/playgrounds',
    authed(
      ctx,
      {
        name: P.string().required(),
        pygments_language: P.string(
          Joi.string().allow('').max(MAX_PYGMENTS_LANGUAGE_LENGTH),
        ).required(),
        url_template: P.string().required(),
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
    authed(ctx, { playground_id: P.int().required() }, async ({ user, realm, params }) => {
      await removePlayground(ctx, { actor: user, realm, id: params.playground_id });
    }),
  );
}
