import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { getUserStatus } from '../../../libs/domain/user-status/get-status';
import { updateStatus } from '../../../libs/domain/user-status/update-status';
import { authed } from '../../../libs/http/route';

export function userStatusRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/users/me/status',
    authed(
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
    authed(ctx, { user_id: P.int().required() }, async ({ user, params }) => ({
      status: await getUserStatus(ctx.db, user, params.user_id),
    })),
  );
}
