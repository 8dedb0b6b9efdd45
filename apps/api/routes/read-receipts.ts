import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { readReceipts } from '../../../libs/domain/messages/read-receipts';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

export function readReceiptRoutes(router: Router, ctx: AppContext): void {
  router.get(
    '/messages/:message_id/read_receipts',
    authed<{ message_id: number }>(
      ctx,
      { message_id: P.int(Joi.number().integer().required()) },
      async ({ user, realm, params }) => ({
        user_ids: await readReceipts(ctx.db, { user, realm, messageId: params.message_id }),
      }),
    ),
  );
}
