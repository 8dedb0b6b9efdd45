import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { readReceipts } from '../../../libs/domain/messages/read-receipts';
import { authed } from '../../../libs/http/route';

export function readReceiptRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/messages/:message_id/read_receipts',
    authed(ctx, { message_id: P.int().required() }, async ({ user, realm, params }) => ({
      user_ids: await readReceipts(ctx.db, { user, realm, messageId: params.message_id }),
    })),
  );
}
