import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import {
  createDrafts,
  deleteDraft,
  editDraft,
  listDrafts,
  type DraftInput,
} from '../../../libs/domain/drafts/drafts';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

const draftSchema = Joi.object({
  type: Joi.string().valid('', 'stream', 'private').required(),
  to: Joi.array().items(Joi.number().integer()).required(),
  topic: Joi.string().allow('').required(),
  content: Joi.string().allow('').required(),
  timestamp: Joi.number(),
});

const draftId = { draft_id: P.int(Joi.number().integer().required()) };

export function draftRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/drafts',
    authed(ctx, {}, async ({ user }) => {
      const drafts = await listDrafts(ctx.db, user);
      return { count: drafts.length, drafts };
    }),
  );
  router.post(
    '/drafts',
    authed<{ drafts: DraftInput[] }>(
      ctx,
      { drafts: P.json(Joi.array().items(draftSchema).required()) },
      async ({ user, realm, params }) => ({
        ids: await createDrafts(ctx, user, realm, params.drafts),
      }),
    ),
  );
  router.patch(
    '/drafts/:draft_id',
    authed<{ draft_id: number; draft: DraftInput }>(
      ctx,
      { ...draftId, draft: P.json(draftSchema.required()) },
      async ({ user, realm, params }) => {
        await editDraft(ctx, user, realm, params.draft_id, params.draft);
      },
    ),
  );
  router.delete(
    '/drafts/:draft_id',
    authed<{ draft_id: number }>(ctx, draftId, async ({ user, realm, params }) => {
      await deleteDraft(ctx, user, realm, params.draft_id);
    }),
  );
}
