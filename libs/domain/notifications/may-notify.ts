import { Prisma, type Stream } from '../../../generated/prisma/client';
import { at } from '../../core/at';
import { Flag } from '../messages/flags';
import { Visibility } from './notification-rules';

/** A copy's flags by which the personal rules (mentions, alert words) may notify. */
const NOTIFYING_FLAGS =
  Flag.mentioned |
  Flag.stream_wildcard_mentioned |
  Flag.topic_wildcard_mentioned |
  Flag.has_alert_word;

/**
 * A column of the send path's recipient read (`s`: a channel's subscription row): whether the
 * channel's own notifications are on for that recipient, by the subscription's setting or else
 * the user's default (rule 6 of docs/notifications.md, muting left out), or anyone follows the
 * topic (rule 5; an uncorrelated subquery PostgreSQL runs once per statement).
 */
export const channelMayNotifySql = (channel: Stream, topic: string): Prisma.Sql => Prisma.sql`
  (SELECT COALESCE(s.email_notifications, u.enable_stream_email_notifications)
       OR COALESCE(s.push_notifications, u.enable_stream_push_notifications)
   FROM users u WHERE u.id = s.user_id)
  OR EXISTS (SELECT 1 FROM user_topics ut
             WHERE ut.stream_id = ${channel.id} AND lower(ut.topic_name) = lower(${topic})
               AND ut.visibility_policy = ${Visibility.FOLLOWED})`;

/**
 * Whether a new message may notify anyone by email or push, and so owes a decision: a superset of
 * the rules (notification-rules.ts), from what the send path knows anyway. A direct message
 * always may; a channel message only when a recipient other than the sender is mentioned or has
 * an alert word, or `channelMayNotify` held for one. Most channel messages then cost the worker
 * nothing: no job, no decision's reads and writes. The decision itself applies the exact rules.
 */
export function mayNotify(
  isChannel: boolean,
  senderId: number,
  copies: { userIds: number[]; flags: number[]; channelMayNotify: ReadonlySet<number> },
): boolean {
  if (!isChannel) return true;
  for (let i = 0; i < copies.userIds.length; i++) {
    const userId = at(copies.userIds, i);
    if (userId === senderId) continue;
    if ((at(copies.flags, i) & NOTIFYING_FLAGS) !== 0 || copies.channelMayNotify.has(userId)) {
      return true;
    }
  }
  return false;
}
