import type { Realm, User } from '../../../generated/prisma/client';
import { findNotificationBot } from '../bots/notification-bot';
import type { AppContext } from '../../core/context';
import { sendMessage } from '../messages/send-message';

/** Zulip's text, with a silent mention of the new user. */
export const referrerNoticeText = (joined: Pick<User, 'id' | 'fullName'>): string =>
  `@_**${joined.fullName}|${joined.id}** accepted your invitation to join Zulip!`;

/**
 * `notify_referrer_on_join`: the notification bot tells the inviter, by a direct message, that the
 * invited person joined. Runs after the account is committed (so the mention resolves); the new
 * account stands whether or not the notice can be sent.
 */
export async function notifyReferrer(
  ctx: AppContext,
  input: { realm: Realm; referredById: number; joined: Pick<User, 'id' | 'fullName'> },
): Promise<void> {
  const { realm } = input;
  const [referrer, bot] = await Promise.all([
    ctx.db.user.findUnique({ where: { id: input.referredById } }),
    findNotificationBot(ctx.db, realm.id),
  ]);
  if (!referrer?.isActive || !bot) return;
  try {
    await sendMessage(ctx, {
      sender: bot,
      realm,
      type: 'private',
      to: [referrer.id],
      content: referrerNoticeText(input.joined),
      clientName: 'Internal',
    });
  } catch (err) {
    ctx.log.warn('domain', 'invitation accepted notice not sent', {
      referrerId: referrer.id,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
