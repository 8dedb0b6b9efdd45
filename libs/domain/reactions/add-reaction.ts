import type { Realm, User } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { reactionAlreadyExists } from '../../core/errors';
import { uniqueViolation } from '../../db/errors';
import type { AppContext } from '../../core/context';
import { accessLockedMessage } from '../messages/access';
import { Flag } from '../messages/flags';
import { checkEmoji, emojiForName, type EmojiIdentity } from './emoji-identity';
import { messageAudience } from '../permissions/message-audience';
import { reactionEvent, type ReactionEvent } from '../../protocol/events/reaction';

/** One user's reaction with one emoji: the unique index a second identical reaction violates. */
const REACTION_KEY = 'reactions_user_id_message_id_reaction_type_emoji_code_key';

export interface ReactionInput {
  user: User;
  realm: Realm;
  messageId: number;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

export async function resolveEmoji(
  db: Db | Tx,
  realm: Pick<Realm, 'id'>,
  input: Pick<ReactionInput, 'emojiName' | 'emojiCode' | 'reactionType'>,
): Promise<EmojiIdentity> {
  if (input.emojiCode !== undefined && input.reactionType !== undefined) {
    return checkEmoji(db, realm.id, {
      emojiName: input.emojiName ?? '',
      emojiCode: input.emojiCode,
      reactionType: input.reactionType,
    });
  }
  return emojiForName(db, realm.id, input.emojiName ?? '');
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
  await inTransaction(ctx, async (tx, events) => {
    // The message locked, then checked: reactions to it take turns, so "already there" is read
    // from what the last of them committed.
    const { flags } = await accessLockedMessage(tx, input.user, input.messageId);
    let emoji = await resolveEmoji(tx, input.realm, input);
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
      // Only the reaction's own unique key means "already there"; anything else reports itself.
      if (uniqueViolation(err, REACTION_KEY)) throw reactionAlreadyExists();
      throw err;
    }
    await events.emit(
      input.realm.id,
      reactionEventFor({ op: 'add', user: input.user, messageId: input.messageId, emoji }),
      await messageAudience(tx, [input.messageId]),
    );
  });
}
