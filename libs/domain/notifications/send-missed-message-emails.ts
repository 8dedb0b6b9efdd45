import { Prisma } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { deliverEmail } from '../email/transport';
import { pushText } from '../push/push-payloads';
import { realmUrl } from '../realms/realm-url';
import { missedMessageEmail, type EmailConversation } from './missed-message-email';
import { Trigger } from './notification-rules';
import { at } from '../../core/at';

interface PendingRow {
  message_id: number;
  trigger: string;
  recipient_id: number;
  subject: string;
  stream_id: number | null;
  stream_name: string | null;
}

/** Triggers that the user's enable_offline_email_notifications governs (not channel settings). */
const PERSONAL = new Set<string>([
  Trigger.DIRECT_MESSAGE,
  Trigger.MENTION,
  Trigger.TOPIC_WILDCARD_MENTION,
  Trigger.STREAM_WILDCARD_MENTION,
  Trigger.TOPIC_WILDCARD_MENTION_IN_FOLLOWED_TOPIC,
  Trigger.STREAM_WILDCARD_MENTION_IN_FOLLOWED_TOPIC,
  Trigger.ALERT_WORD,
]);

/** Sent rows are kept this long, so that deciding a message again cannot email it twice. */
const KEEP_SENT = Prisma.sql`interval '1 day'`;

/**
 * Job handler (missed-message-emails, and the minutely sweep of overdue ones): sends every
 * user's emails due by now. A user's failure does not stop the others; the job then fails and
 * is retried, and only what was not sent is sent again.
 */
export async function sendDueMissedMessageEmails(
  ctx: AppContext,
  dueAt = Date.now(),
): Promise<number> {
  await ctx.db.$executeRaw(Prisma.sql`
    DELETE FROM missed_message_emails WHERE sent_at < now() - ${KEEP_SENT}`);
  const due = new Date(Math.max(dueAt, Date.now()));
  const users = await ctx.db.$queryRaw<{ user_id: number }[]>(Prisma.sql`
    SELECT DISTINCT user_id FROM missed_message_emails
    WHERE sent_at IS NULL AND scheduled_at <= ${due}`);
  let sent = 0;
  const failures: unknown[] = [];
  for (const { user_id } of users) {
    try {
      sent += await sendUserEmails(ctx, user_id, due);
    } catch (err) {
      failures.push(err);
      ctx.log.warn('notifications', 'missed-message email failed; will retry', {
        userId: user_id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  if (failures.length > 0) throw failures.at(-1);
  return sent;
}

/**
 * One user's due emails, one per conversation (channel topic, or direct-message conversation).
 * Each conversation is sent inside its own transaction holding its rows locked, so two workers
 * never send it both, and a failed send leaves the rows to be tried again. Messages read since
 * are left out; a conversation with nothing unread left sends nothing.
 */
async function sendUserEmails(ctx: AppContext, userId: number, due: Date): Promise<number> {
  const user = await ctx.db.user.findUnique({ where: { id: userId }, include: { realm: true } });
  if (!user) {
    await ctx.db.$executeRaw`DELETE FROM missed_message_emails WHERE user_id = ${userId}`;
    await ctx.db.$executeRaw`DELETE FROM missed_message_email_batches WHERE user_id = ${userId}`;
    return 0;
  }
  // The batch closes first: a message decided from now on starts the next one.
  await ctx.db.$executeRaw`
    DELETE FROM missed_message_email_batches WHERE user_id = ${userId} AND due_at <= ${due}`;
  const pending = await ctx.db.$queryRaw<
    (Omit<PendingRow, 'recipient_id'> & { recipient_id: number | null })[]
  >(
    Prisma.sql`
    SELECT e.message_id, e.trigger, m.recipient_id, m.subject,
      s.id AS stream_id, s.name AS stream_name
    FROM missed_message_emails e
    LEFT JOIN messages m ON m.id = e.message_id
    LEFT JOIN streams s ON s.recipient_id = m.recipient_id
    WHERE e.user_id = ${userId} AND e.sent_at IS NULL AND e.scheduled_at <= ${due}
    ORDER BY e.message_id`,
  );
  // Rows whose message was deleted since (the table has no foreign keys) are simply dropped.
  const gone = pending.filter((row) => row.recipient_id === null).map((row) => row.message_id);
  if (gone.length) {
    await ctx.db.$executeRaw`
      DELETE FROM missed_message_emails WHERE user_id = ${userId} AND message_id = ANY(${gone}::int[])`;
  }
  const buckets = new Map<string, PendingRow[]>();
  for (const found of pending) {
    if (found.recipient_id === null) continue;
    const row = { ...found, recipient_id: found.recipient_id };
    const key =
      row.stream_id !== null
        ? `c${row.recipient_id}:${row.subject.toLowerCase()}`
        : `d${row.recipient_id}`;
    buckets.set(key, [...(buckets.get(key) ?? []), row]);
  }
  let sent = 0;
  for (const rows of buckets.values()) {
    const delivered = await sendConversation(ctx, user, rows);
    if (delivered) sent += 1;
  }
  return sent;
}

/**
 * One conversation's email, inside a transaction holding its rows locked (rows another worker
 * holds are skipped); whether an email went out.
 */
function sendConversation(
  ctx: AppContext,
  user: UserWithRealm,
  rows: PendingRow[],
): Promise<boolean> {
  const userId = user.id;
  return ctx.db.$transaction(
    async (tx) => {
      const ids = rows.map((r) => r.message_id);
      const locked = await tx.$queryRaw<{ message_id: number; trigger: string }[]>(
        Prisma.sql`
        SELECT message_id, trigger FROM missed_message_emails
        WHERE user_id = ${userId} AND message_id = ANY(${ids}::int[]) AND sent_at IS NULL
        FOR UPDATE SKIP LOCKED`,
      );
      if (locked.length === 0) return false;
      const unread = await tx.$queryRaw<{ message_id: number }[]>(Prisma.sql`
        SELECT message_id FROM user_messages
        WHERE user_id = ${userId} AND message_id = ANY(${locked.map((l) => l.message_id)}::int[])
          AND (flags & 1) = 0`);
      const unreadIds = new Set(unread.map((u) => u.message_id));
      const wanted = locked.filter(
        (l) =>
          unreadIds.has(l.message_id) &&
          user.isActive &&
          (!PERSONAL.has(l.trigger) || user.enableOfflineEmailNotifications),
      );
      let delivered = false;
      if (wanted.length) {
        const email = await buildEmail(
          ctx,
          user,
          at(rows, 0),
          wanted.map((w) => w.message_id),
        );
        await deliverEmail(ctx, email);
        delivered = true;
      }
      await tx.$executeRaw(Prisma.sql`
        UPDATE missed_message_emails SET sent_at = now()
        WHERE user_id = ${userId} AND message_id = ANY(${locked.map((l) => l.message_id)}::int[])`);
      return delivered;
    },
    { timeout: 90_000, maxWait: 10_000 },
  );
}

type UserWithRealm = Prisma.UserGetPayload<{ include: { realm: true } }>;

async function buildEmail(
  ctx: AppContext,
  user: UserWithRealm,
  first: PendingRow,
  messageIds: number[],
) {
  const messages = await ctx.db.message.findMany({
    where: { id: { in: messageIds } },
    include: { sender: { select: { fullName: true } } },
    orderBy: { id: 'asc' },
  });
  let conversation: EmailConversation;
  if (first.stream_id !== null) {
    conversation = {
      kind: 'channel',
      channelId: first.stream_id,
      channelName: first.stream_name ?? '',
      topic: messages[0]?.subject ?? first.subject,
    };
  } else {
    const others = await ctx.db.$queryRaw<{ id: number; full_name: string }[]>(Prisma.sql`
      SELECT u.id, u.full_name FROM subscriptions s JOIN users u ON u.id = s.user_id
      WHERE s.recipient_id = ${first.recipient_id} AND s.user_id <> ${user.id}
      ORDER BY u.id`);
    conversation = {
      kind: 'direct',
      others: others.map((o) => ({ id: o.id, fullName: o.full_name })),
    };
  }
  const withContent =
    user.messageContentInEmailNotifications && user.realm.messageContentAllowedInEmailNotifications;
  const url = realmUrl(user.realm.stringId, ctx.config);
  return missedMessageEmail({
    to: user.deliveryEmail,
    realmName: user.realm.name,
    realmUrl: url,
    realmNameInSubject: user.realmNameInEmailNotificationsPolicy === 2,
    conversation,
    messages: messages.map((m) => ({
      id: m.id,
      senderName: m.sender.fullName,
      sentAt: m.dateSent,
      html: withContent ? m.renderedContent : null,
      text: withContent ? pushText(m.renderedContent) : null,
    })),
    messageIdHeader: `<missed-${user.id}-${messageIds[0]}@${new URL(url).hostname}>`,
  });
}
