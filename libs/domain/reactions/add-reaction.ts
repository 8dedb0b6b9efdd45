import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { ApiError, reactionAlreadyExists } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { accessMessage } from '../messages/access';
import { Flag } from '../messages/flags';
import { checkEmoji, emojiForName, type EmojiIdentity } from './emoji-identity';
import { messageAudience } from '../messages/message-audience';
import { reactionEvent, type ReactionEvent } from '../../protocol/events/reaction';

export interface ReactionInput {
  user: User;
  realm: Realm;
  messageId: number;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

export async function resolveEmoji(
  ctx: AppContext,
  realm: Pick<Realm, 'id'>,
  input: Pick<ReactionInput, 'emojiName' | 'emojiCode' | 'reactionType'>,
): Promise<EmojiIdentity> {
  if (input.emojiCode !== undefined && input.reactionType !== undefined) {
    return checkEmoji(ctx.db, realm.id, {
      emojiName: input.emojiName ?? '',
      emojiCode: input.emojiCode,
      reactionType: input.reactionType,
    });
  }
  return emojiForName(ctx.db, realm.id, input.emojiName ?? '');
}

export const reactionEventFor = ({
  op,
  user,
  messageId,
  emoji,
}: {
  op: 'add' | 'remove';
  user: User;
  messageId: number;
  emoji: EmojiIdentity;
}): ReactionEvent =>
  reactionEvent({
    op,
    user_id: user.id,
    user: { user_id: user.id, email: user.email, full_name: user.fullName },
    message_id: messageId,
    emoji_name: emoji.emojiName,
    emoji_code: emoji.emojiCode,
    reaction_type: emoji.reactionType,
  });

/** POST /messages/{message_id}/reactions (Zulip's check_add_reaction). */
export async function addReaction(ctx: AppContext, input: ReactionInput): Promise<void> {
  const { flags } = await accessMessage(ctx.db, input.user, input.messageId);
  let emoji = await resolveEmoji(ctx, input.realm, input);
  await inTransaction(ctx, async (tx, events) => {
    const mine = await tx.reaction.findFirst({
      where: {
        messageId: input.messageId,
        userId: input.user.id,
        reactionType: emoji.reactionType,
        emojiCode: emoji.emojiCode,
      },
    });
    if (mine) throw reactionAlreadyExists();
    // Voting on someone else's reaction keeps the name they used (as Zulip does).
    const other = await tx.reaction.findFirst({
      where: {
        messageId: input.messageId,
        reactionType: emoji.reactionType,
        emojiCode: emoji.emojiCode,
      },
    });
    if (other) emoji = { ...emoji, emojiName: other.emojiName };
    if (flags === null) {
      await tx.userMessage.upsert({
        where: { userId_messageId: { userId: input.user.id, messageId: input.messageId } },
        create: {
          userId: input.user.id,
          messageId: input.messageId,
          flags: BigInt(Flag.historical | Flag.read),
        },
        update: {},
      });
    }
    try {
      await tx.reaction.create({
        data: {
          messageId: input.messageId,
          userId: input.user.id,
          emojiName: emoji.emojiName,
          emojiCode: emoji.emojiCode,
          reactionType: emoji.reactionType,
        },
      });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      // A concurrent identical request won the unique index.
      throw reactionAlreadyExists();
    }
    await events.emit(
      input.realm.id,
      reactionEventFor({ op: 'add', user: input.user, messageId: input.messageId, emoji }),
      await messageAudience(tx, [input.messageId]),
    );
  });
}
