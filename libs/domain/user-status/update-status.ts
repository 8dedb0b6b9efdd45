import type { User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { checkEmoji, type EmojiIdentity } from '../emoji/check-emoji';
import { usersWhoCanAccess } from '../permissions/users';
import { applyPresenceEnabled } from '../presence/presence-setting';
import { userSettingsEvent } from '../../protocol/events/user-settings';
import { userStatusEvent } from '../../protocol/events/user-status';

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface UpdateStatusInput {
  user: User;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
  /** Deprecated: sets presence_enabled to its inverse. */
  away?: boolean;
}

/**
 * `POST /users/me/status`: only the passed fields change. The users who can access the user get a
 * `user_status` event carrying the changed fields (Zulip's `do_update_user_status`).
 */
export async function updateStatus(ctx: AppContext, input: UpdateStatusInput): Promise<void> {
  const { user } = input;
  const statusText = input.statusText?.trim();
  if (input.away === undefined && statusText === undefined && input.emojiName === undefined) {
    throw badRequest('Client did not pass any new values.');
  }
  if (statusText !== undefined && statusText.length > MAX_STATUS_TEXT_LENGTH) {
    throw badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
  }
  let emoji: EmojiIdentity | undefined;
  if (input.emojiName === '') {
    emoji = { emojiName: '', emojiCode: '', reactionType: 'unicode_emoji' };
  } else if (input.emojiName !== undefined) {
    emoji = await checkEmoji(ctx.db, user.realmId, {
      emojiName: input.emojiName,
      emojiCode: input.emojiCode,
      reactionType: input.reactionType,
    });
  } else if (input.emojiCode !== undefined || input.reactionType !== undefined) {
    throw badRequest(
      'Client must pass emoji_name if they pass either emoji_code or reaction_type.',
    );
  }

  await inTransaction(ctx, async (tx, events) => {
    const audience = await usersWhoCanAccess(tx, user);
    if (input.away !== undefined && user.presenceEnabled !== !input.away) {
      await tx.user.update({ where: { id: user.id }, data: { presenceEnabled: !input.away } });
      await events.emit(
        user.realmId,
        userSettingsEvent({ op: 'update', property: 'presence_enabled', value: !input.away }),
        [user.id],
      );
      // As for the presence_enabled setting itself: everyone sees the new state at once.
      await applyPresenceEnabled(tx, events, user, !input.away, new Date());
    }
    const data: Record<string, string | Date> = { timestamp: new Date() };
    if (statusText !== undefined) data.statusText = statusText;
    if (emoji) {
      data.emojiName = emoji.emojiName;
      data.emojiCode = emoji.emojiCode;
      data.reactionType = emoji.reactionType;
    }
    await tx.userStatus.upsert({
      where: { userId: user.id },
      create: { userId: user.id, ...data },
      update: data,
    });
    const event = userStatusEvent({ user_id: user.id });
    if (input.away !== undefined) event.away = input.away;
    if (statusText !== undefined) event.status_text = statusText;
    if (emoji) {
      event.emoji_name = emoji.emojiName;
      event.emoji_code = emoji.emojiCode;
      event.reaction_type = emoji.reactionType;
    }
    await events.emit(user.realmId, event, audience);
  });
}
