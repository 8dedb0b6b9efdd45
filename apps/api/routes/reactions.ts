import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { addReaction } from '../../../libs/domain/reactions/add-reaction';
import { removeReaction } from '../../../libs/domain/reactions/remove-reaction';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface ReactionParams {
  message_id: number;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

const spec = (nameRequired: boolean) => ({
  message_id: P.int(Joi.number().integer().required()),
  emoji_name: P.string(nameRequired ? Joi.string().allow('').required() : Joi.string().allow('')),
  emoji_code: P.string(),
  reaction_type: P.string(),
});

export function reactionRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/messages/:message_id/reactions',
    authed<ReactionParams>(ctx, spec(true), async ({ user, realm, params }) => {
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
    authed<ReactionParams>(ctx, spec(false), async ({ user, realm, params }) => {
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
