import { Prisma } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import type { Db, Tx } from '../../db/client';
import { enqueueJob, JobName, Jobs, removeJob, writeJob, writeJobs } from '../../jobs';
import { awayUsers } from './away-users';
import { notifyMessageJobId } from './enqueue-notifications';
import { decideNotifications, type TriggerName } from './notification-rules';

/** One recipient's copy of the message with everything the rules read, from one query. */
interface FactsRow {
  user_id: number;
  flags: bigint;
  is_bot: boolean;
  sender_muted: boolean;
  has_device: boolean;
  last_active_time: Date | null;
  batching_seconds: number;
  enable_offline_email_notifications: boolean;
  enable_offline_push_notifications: boolean;
  enable_online_push_notifications: boolean;
  enable_stream_email_notifications: boolean;
  enable_stream_push_notifications: boolean;
  enable_followed_topic_email_notifications: boolean;
  enable_followed_topic_push_notifications: boolean;
  enable_followed_topic_wildcard_mentions_notify: boolean;
  wildcard_mentions_notify: boolean;
  subscribed: boolean;
  is_muted: boolean | null;
  email_notifications: boolean | null;
  push_notifications: boolean | null;
  sub_wildcard_mentions_notify: boolean | null;
  visibility_policy: number;
}

export interface DecisionOutcome {
  recipients: number;
  emails: number;
  pushes: number;
}

/** The message as the rules read it. */
interface MessageFacts {
  sender_id: number;
  recipient_id: number;
  subject: string;
  stream_id: number | null;
}

/** A recipient the rules tell about the message, by email, push or both. */
interface Candidate {
  row: FactsRow;
  email: TriggerName | null;
  push: TriggerName | null;
  pushWhileOnline: boolean;
}

/**
 * Job handler (notify-message): decides, in the worker and never in the send path, who is told
 * about a message by email and by push, and queues that work. Emails wait as rows in PostgreSQL
 * until the end of each user's batching period (one job per due time, not per user); pushes go
 * out in one job for the message. Deciding twice changes nothing: a row per (user, message) is
 * written once, and a push is sent once per copy (send-push-notifications.ts). With
 * `awayUserId` (notify-collected-queue.ts, Zulip's missedmessage_hook) the message is decided
 * again for that one recipient, as someone away; the decision owed to the others stays owed.
 */
export async function decideMessageNotifications(
  ctx: AppContext,
  payload: { messageId: number },
  options: { awayUserId?: number } = {},
): Promise<DecisionOutcome> {
  const only = options.awayUserId;
  const settle = async (db: Db | Tx) => {
    if (only === undefined) await decided(db, payload.messageId);
  };
  const [message] = await ctx.db.$queryRaw<MessageFacts[]>(Prisma.sql`
    SELECT m.sender_id, m.recipient_id, m.subject, s.id AS stream_id
    FROM messages m LEFT JOIN streams s ON s.recipient_id = m.recipient_id
    WHERE m.id = ${payload.messageId}`);
  if (!message) {
    await settle(ctx.db);
    return { recipients: 0, emails: 0, pushes: 0 };
  }
  const rows = (await readRecipientFacts(ctx.db, payload.messageId, message)).filter(
    (row) => only === undefined || row.user_id === only,
  );
  const candidates = rows.flatMap((row) => candidateOf(ctx, message, row) ?? []);
  if (candidates.length === 0) {
    await settle(ctx.db);
    return { recipients: rows.length, emails: 0, pushes: 0 };
  }

  const away =
    only !== undefined
      ? new Set([only])
      : await awayUsers(
          ctx,
          candidates.map((c) => ({
            userId: c.row.user_id,
            lastActiveMs: c.row.last_active_time?.getTime() ?? null,
          })),
        );
  const emails = candidates.filter((c) => c.email && away.has(c.row.user_id));
  const pushes = candidates.filter((c) => c.push && (away.has(c.row.user_id) || c.pushWhileOnline));

  // The email rows, the jobs that send them and the decision's end commit together.
  await ctx.db.$transaction(async (tx) => {
    if (emails.length) await queueEmails(tx, payload.messageId, emails);
    if (pushes.length) {
      await writeJob(
        tx,
        Jobs.pushMessage,
        {
          messageId: payload.messageId,
          recipients: pushes.map((c) => ({ userId: c.row.user_id, trigger: c.push as string })),
        },
        {
          jobId:
            only === undefined
              ? `push-message-${payload.messageId}`
              : `push-message-${payload.messageId}-user-${only}`,
        },
      );
    }
    await settle(tx);
  });
  return { recipients: rows.length, emails: emails.length, pushes: pushes.length };
}

/** Each recipient's copy of the message but the sender's, with what the rules read, in one query. */
function readRecipientFacts(db: Db, messageId: number, message: MessageFacts): Promise<FactsRow[]> {
  return db.$queryRaw<FactsRow[]>(Prisma.sql`
    SELECT um.user_id, um.flags, u.is_bot,
      EXISTS (SELECT 1 FROM muted_users mu
              WHERE mu.user_profile_id = um.user_id AND mu.muted_user_id = ${message.sender_id})
        AS sender_muted,
      EXISTS (SELECT 1 FROM push_device_tokens d WHERE d.user_id = um.user_id) AS has_device,
      p.last_active_time,
      u.email_notifications_batching_period_seconds AS batching_seconds,
      u.enable_offline_email_notifications, u.enable_offline_push_notifications,
      u.enable_online_push_notifications, u.enable_stream_email_notifications,
      u.enable_stream_push_notifications, u.enable_followed_topic_email_notifications,
      u.enable_followed_topic_push_notifications,
      u.enable_followed_topic_wildcard_mentions_notify, u.wildcard_mentions_notify,
      sub.id IS NOT NULL AS subscribed, sub.is_muted, sub.email_notifications,
      sub.push_notifications, sub.wildcard_mentions_notify AS sub_wildcard_mentions_notify,
      COALESCE(ut.visibility_policy, 0) AS visibility_policy
    FROM user_messages um
    JOIN users u ON u.id = um.user_id
    LEFT JOIN user_presences p ON p.user_id = um.user_id
    LEFT JOIN subscriptions sub
      ON sub.user_id = um.user_id AND sub.recipient_id = ${message.recipient_id} AND sub.active
    LEFT JOIN user_topics ut
      ON ut.user_id = um.user_id AND ut.stream_id = ${message.stream_id ?? -1}
      AND lower(ut.topic_name) = lower(${message.subject})
    WHERE um.message_id = ${messageId} AND um.user_id <> ${message.sender_id}
      AND (um.flags & 1) = 0 AND u.is_active`);
}

/** What the rules decide for one recipient; null when they tell it nothing. */
function candidateOf(ctx: AppContext, message: MessageFacts, row: FactsRow): Candidate | null {
  const decision = decideNotifications({
    userId: row.user_id,
    senderId: message.sender_id,
    isBot: row.is_bot,
    flags: Number(row.flags),
    senderMuted: row.sender_muted,
    settings: {
      enableOfflineEmailNotifications: row.enable_offline_email_notifications,
      enableOfflinePushNotifications: row.enable_offline_push_notifications,
      enableOnlinePushNotifications: row.enable_online_push_notifications,
      enableStreamEmailNotifications: row.enable_stream_email_notifications,
      enableStreamPushNotifications: row.enable_stream_push_notifications,
      enableFollowedTopicEmailNotifications: row.enable_followed_topic_email_notifications,
      enableFollowedTopicPushNotifications: row.enable_followed_topic_push_notifications,
      enableFollowedTopicWildcardMentionsNotify: row.enable_followed_topic_wildcard_mentions_notify,
      wildcardMentionsNotify: row.wildcard_mentions_notify,
    },
    channel:
      message.stream_id !== null && row.subscribed
        ? {
            subscription: {
              isMuted: row.is_muted ?? false,
              emailNotifications: row.email_notifications,
              pushNotifications: row.push_notifications,
              wildcardMentionsNotify: row.sub_wildcard_mentions_notify,
            },
            topicVisibility: row.visibility_policy,
          }
        : null,
  });
  // Without a device (or a bouncer) a push has nowhere to go.
  const push = row.has_device && ctx.config.pushBouncer ? decision.push : null;
  if (!decision.email && !push) return null;
  return { row, email: decision.email, push, pushWhileOnline: decision.pushWhileOnline };
}

/**
 * Writes the email rows and the jobs that send them. A user with a batch being collected joins
 * it; otherwise a batch starts, due after the user's batching period. The no-op update returns
 * (and locks) the batch a concurrent decision just created, which a plain read of the
 * statement's snapshot would miss.
 */
async function queueEmails(tx: Tx, messageId: number, emails: Candidate[]): Promise<void> {
  const due = await tx.$queryRaw<{ due_at: number }[]>(Prisma.sql`
    WITH t AS (
      SELECT * FROM unnest(${emails.map((c) => c.row.user_id)}::int[],
                           ${emails.map((c) => c.email)}::text[],
                           ${emails.map((c) => c.row.batching_seconds)}::int[]) AS t(u, trig, period)),
    batch AS (
      INSERT INTO missed_message_email_batches (user_id, due_at)
      SELECT u, now() + make_interval(secs => period) FROM t
      ON CONFLICT (user_id) DO UPDATE SET due_at = missed_message_email_batches.due_at
      RETURNING user_id, due_at),
    inserted AS (
      INSERT INTO missed_message_emails (user_id, message_id, trigger, scheduled_at)
      SELECT t.u, ${messageId}, t.trig, batch.due_at
      FROM t JOIN batch ON batch.user_id = t.u
      ON CONFLICT (user_id, message_id) DO NOTHING
      RETURNING scheduled_at)
    SELECT DISTINCT (ceil(extract(epoch FROM scheduled_at)) * 1000)::float8 AS due_at FROM inserted`);
  await writeMissedMessageEmailJobs(tx, [...new Set(due.map((d) => Number(d.due_at)))]);
}

/** The decision is made and its work queued: nothing is owed for this message any more. */
const decided = (db: Db | Tx, messageId: number) =>
  db.$executeRaw`DELETE FROM notification_pending WHERE message_id = ${messageId}`;

/** Decisions older than this are given up: a notification a day late is noise. */
const GIVE_UP = Prisma.sql`interval '1 day'`;

/**
 * Part of the minutely notifications sweep: messages still owed a decision a minute after they
 * were sent lost their job (Redis lost it, or it failed for good), so it is enqueued again
 * (the stable job id keeps one per message if it is merely late). Deciding twice is harmless.
 */
export async function redecideLostNotifications(ctx: AppContext): Promise<number> {
  const stale = await ctx.db.$queryRaw<{ message_id: number }[]>(Prisma.sql`
    DELETE FROM notification_pending WHERE created_at < now() - ${GIVE_UP} RETURNING message_id`);
  if (stale.length) {
    ctx.log.warn('notifications', 'gave up deciding notifications a day old', {
      messages: stale.length,
    });
  }
  const lost = await ctx.db.$queryRaw<{ message_id: number }[]>(Prisma.sql`
    SELECT message_id FROM notification_pending
    WHERE created_at < now() - interval '1 minute' ORDER BY message_id LIMIT 10000`);
  for (const { message_id } of lost) {
    // A job that failed for good keeps its id in Redis; it makes way for the new one.
    await removeJob(ctx, JobName.NOTIFY_MESSAGE, notifyMessageJobId(message_id));
    await enqueueJob(
      ctx,
      JobName.NOTIFY_MESSAGE,
      { messageId: message_id },
      { jobId: notifyMessageJobId(message_id) },
    );
  }
  return lost.length;
}

/** One job per due second sends every user's emails due by then. */
export const writeMissedMessageEmailJobs = (tx: Tx, dueTimes: number[]) =>
  writeJobs(
    tx,
    Jobs.missedMessageEmails,
    dueTimes.map((dueAt) => ({
      payload: { dueAt },
      jobId: `missed-message-emails-${dueAt}`,
      runAt: new Date(dueAt),
    })),
  );
