import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { getUserStatus } from '../../../libs/domain/user-status/get-status';
import { updateStatus } from '../../../libs/domain/user-status/update-status';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface UpdateStatusParams {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

export function userStatusRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/users/me/status',
    authed<UpdateStatusParams>(
      ctx,
      {
        status_text: P.string(),
        emoji_name: P.string(),
        emoji_code: P.string(),
        reaction_type: P.string(),
        away: P.bool(),
      },
      async ({ user, params }) => {
        await updateStatus(ctx, {
          user,
          statusText: params.status_text,
          emojiName: params.emoji_name,
          emojiCode: params.emoji_code,
          reactionType: params.reaction_type,
          away: params.away,
        });
      },
    ),
  );
  router.get(
    '/users/:user_id/status',
    authed<{ user_id: number }>(
      ctx,
      { user_id: P.int(Joi.number().integer().required()) },
      async ({ user, params }) => ({
        status: await getUserStatus(ctx.db, user, params.user_id),
      }),
    ),
  );
}
