import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import {
  addLinkifier,
  listLinkifiers,
  removeLinkifier,
  reorderLinkifiers,
  updateLinkifier,
} from '../../../libs/domain/linkifiers/linkifiers';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface LinkifierParams {
  pattern: string;
  url_template: string;
}

const linkifierSpec = {
  pattern: P.string(Joi.string().required()),
  url_template: P.string(Joi.string().required()),
};
const filterId = { filter_id: P.int(Joi.number().integer().required()) };

export function linkifierRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/realm/linkifiers',
    authed(ctx, {}, async ({ realm }) => ({ linkifiers: await listLinkifiers(ctx.db, realm.id) })),
  );
  router.patch(
    '/realm/linkifiers',
    authed<{ ordered_linkifier_ids: number[] }>(
      ctx,
      { ordered_linkifier_ids: P.json(Joi.array().items(Joi.number().integer()).required()) },
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
    authed<LinkifierParams>(ctx, linkifierSpec, async ({ user, realm, params }) => ({
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
    authed<LinkifierParams & { filter_id: number }>(
      ctx,
      { ...linkifierSpec, ...filterId },
      async ({ user, realm, params }) => {
        await updateLinkifier(ctx, {
          actor: user,
          realm,
          id: params.filter_id,
          pattern: params.pattern,
          urlTemplate: params.url_template,
        });
      },
    ),
  );
  router.delete(
    '/realm/filters/:filter_id',
    authed<{ filter_id: number }>(ctx, filterId, async ({ user, realm, params }) => {
      await removeLinkifier(ctx, { actor: user, realm, id: params.filter_id });
    }),
  );
}
