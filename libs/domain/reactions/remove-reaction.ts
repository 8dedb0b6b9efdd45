import { inTransaction } from '../../events/outbox';
import { badRequest, reactionDoesNotExist } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { accessLockedMessage } from '../messages/access';
import {
  emojiForName,
  normalizeReactionType,
  type EmojiIdentity,
  type ReactionType,
} from './emoji-identity';
import { reactionEventFor, type ReactionInput } from './add-reaction';
import { messageAudience } from '../permissions/message-audience';

/** DELETE /messages/{message_id}/reactions (Zulip's remove_reaction backend). */
export async function removeReaction(ctx: AppContext, input: ReactionInput): Promise<void> {
  await inTransaction(ctx, async (tx, events) => {
    // The message locked, then checked: a removal racing another finds the reaction gone.
    await accessLockedMessage(tx, input.user, input.messageId);
    let code = input.emojiCode;
    let type = input.reactionType ? normalizeReactionType(input.reactionType) : undefined;
    if (code === undefined) {
      if (input.emojiName === undefined) {
        throw badRequest(
          'At least one of the following arguments must be present: emoji_name, emoji_code',
        );
      }
      const found = await emojiForName(tx, input.realm.id, input.emojiName);
      code = found.emojiCode;
      type = type ?? found.reactionType;
    }
    const reactionType = type ?? 'unicode_emoji';
    const reaction = await tx.reaction.findFirst({
      where: { messageId: input.messageId, userId: input.user.id, emojiCode: code, reactionType },
    });
    if (!reaction) throw reactionDoesNotExist();
    await tx.reaction.delete({ where: { id: reaction.id } });
    const emoji: EmojiIdentity = {
      emojiName: reaction.emojiName,
      emojiCode: reaction.emojiCode,
      reactionType: reaction.reactionType as ReactionType,
    };
    await events.emit(
      input.realm.id,
      reactionEventFor({ op: 'remove', user: input.user, messageId: input.messageId, emoji }),
      await messageAudience(tx, [input.messageId]),
    );
  });
}
