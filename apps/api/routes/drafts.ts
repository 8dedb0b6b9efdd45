import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { createDrafts } from '../../../libs/domain/drafts/create-drafts';
import { deleteDraft } from '../../../libs/domain/drafts/delete-draft';
import { draftInput } from '../../../libs/domain/drafts/validate-drafts';
import { editDraft } from '../../../libs/domain/drafts/edit-draft';
import { listDrafts } from '../../../libs/domain/drafts/list-drafts';
import { authed } from '../../../libs/http/route';

const draftId = { draft_id: P.int().required() };

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
    authed(ctx, { drafts: P.array(draftInput).required() }, async ({ user, realm, params }) => ({
      ids: await createDrafts(ctx, user, realm, params.drafts),
    })),
  );
  router.patch(
    '/drafts/:draft_id',
    authed(ctx, { ...draftId, draft: draftInput.required() }, async ({ user, realm, params }) => {
      await editDraft(ctx, { user, realm, draftId: params.draft_id, draft: params.draft });
    }),
  );
  router.delete(
    '/drafts/:draft_id',
    authed(ctx, draftId, async ({ user, realm, params }) => {
      await deleteDraft(ctx, user, realm, params.draft_id);
    }),
  );
}
