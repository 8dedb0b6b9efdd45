import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { addReaction, type ReactionInput } from '../../../libs/domain/reactions/add-reaction';
import { removeReaction } from '../../../libs/domain/reactions/remove-reaction';
import { authed } from '../../../libs/http/route';

const spec = (nameRequired: boolean) => ({
  message_id: P.int().required(),
  emoji_name: nameRequired ? P.string().required() : P.string(),
  emoji_code: P.string(),
  reaction_type: P.string(),
});

/** Adding and removing name the reaction alike; only removing may leave out `emoji_name`. */
const reactionRoute = (
  ctx: AppContext,
  nameRequired: boolean,
  action: (ctx: AppContext, input: ReactionInput) => Promise<void>,
) =>
  authed(ctx, spec(nameRequired), async ({ user, realm, params }) => {
    await action(ctx, {
      user,
      realm,
      messageId: params.message_id,
      emojiName: params.emoji_name,
      emojiCode: params.emoji_code,
      reactionType: params.reaction_type,
    });
  });

export function reactionRoutes(router: Router, ctx: AppContext): void {
  router.post('/messages/:message_id/reactions', reactionRoute(ctx, true, addReaction));
  router.delete('/messages/:message_id/reactions', reactionRoute(ctx, false, removeReaction));
}
