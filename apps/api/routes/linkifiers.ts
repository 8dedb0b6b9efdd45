import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { addLinkifier } from '../../../libs/domain/linkifiers/add-linkifier';
import { listLinkifiers } from '../../../libs/domain/linkifiers/list-linkifiers';
import { removeLinkifier } from '../../../libs/domain/linkifiers/remove-linkifier';
import { reorderLinkifiers } from '../../../libs/domain/linkifiers/reorder-linkifiers';
import { updateLinkifier } from '../../../libs/domain/linkifiers/update-linkifier';
import { authed } from '../../../libs/http/route';

const linkifierSpec = {
  pattern: P.string(Joi.string()).required(),
  url_template: P.string(Joi.string()).required(),
};
const filterId = { filter_id: P.int().required() };

export function linkifierRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/realm/linkifiers',
    authed(ctx, {}, async ({ realm }) => ({ linkifiers: await listLinkifiers(ctx.db, realm.id) })),
  );
  router.patch(
    '/realm/linkifiers',
    authed(
      ctx,
      { ordered_linkifier_ids: P.array(P.int()).required() },
      async ({ user, realm, params }) => {
        await reorderLinkifiers(ctx, {
          actor: user,
          realm,
          orderedIds: params.ordered_linkifier_ids,
        });
      },
    ),
  );
  router.post(
    '/realm/filters',
    authed(ctx, linkifierSpec, async ({ user, realm, params }) => ({
      id: await addLinkifier(ctx, {
        actor: user,
        realm,
        pattern: params.pattern,
        urlTemplate: params.url_template,
      }),
    })),
  );
  router.patch(
    '/realm/filters/:filter_id',
    authed(ctx, { ...linkifierSpec, ...filterId }, async ({ user, realm, params }) => {
      await updateLinkifier(ctx, {
        actor: user,
        realm,
        id: params.filter_id,
        pattern: params.pattern,
        urlTemplate: params.url_template,
      });
    }),
  );
  router.delete(
    '/realm/filters/:filter_id',
    authed(ctx, filterId, async ({ user, realm, params }) => {
      await removeLinkifier(ctx, { actor: user, realm, id: params.filter_id });
    }),
  );
}
