import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { addReaction } from '../../../libs/domain/reactions/add-reaction';
import { removeReaction } from '../../../libs/domain/reactions/remove-reaction';
import { authed } from '../../../libs/http/route';

const spec = (nameRequired: boolean) => ({
  message_id: P.int().required(),
  emoji_name: nameRequired ? P.string().required() : P.string(),
  emoji_code: P.string(),
  reaction_type: P.string(),
});

export function reactionRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/messages/:message_id/reactions',
    authed(ctx, spec(true), async ({ user, realm, params }) => {
      await addReaction(ctx, {
        user,
        realm,
        messageId: params.message_id,
        emojiName: params.emoji_name,
        emojiCode: params.emoji_code,
        reactionType: params.reaction_type,
      });
    }),
  );
  router.delete(
    '/messages/:message_id/reactions',
    authed(ctx, spec(false), async ({ user, realm, params }) => {
      await removeReaction(ctx, {
        user,
        realm,
        messageId: params.message_id,
        emojiName: params.emoji_name,
        emojiCode: params.emoji_code,
        reactionType: params.reaction_type,
      });
    }),
  );
}
