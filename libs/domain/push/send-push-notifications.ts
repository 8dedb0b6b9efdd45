import { Prisma } from '../../../generated/prisma/client';
import type { PushBouncerConfig } from '../../core/config';
import type { AppContext } from '../../core/context';
import type { PushMessagePayload } from '../../jobs';
import { Flag } from '../messages/flags';
import type { TriggerName } from '../notifications/notification-rules';
import { realmUrl } from '../realms/realm-url';
import { avatarUrl } from '../users/avatar';
import { BouncerError } from './bouncer-client';
import { notifyThroughBouncer, pushTarget } from './push-devices';
import { apnsMessagePayload, gcmMessagePayload, type PushMessage } from './push-payloads';

/** Recipients one job pushes at once (a fraction of a worker's database connections). */
const PUSH_LANES = 4;

/** A message as its notifications show it; null when it is gone. */
async function loadPushMessage(ctx: AppContext, messageId: number): Promise<PushMessage | null> {
  const message = await ctx.db.message.findUnique({
    where: { id: messageId },
    include: {
      sender: true,
      realm: { select: { stringId: true } },
      recipient: { include: { stream: { select: { id: true, name: true } } } },
    },
  });
  if (!message) return null;
  const avatar = avatarUrl(message.sender);
  const place: PushMessage['place'] = message.recipient.stream
    ? {
        kind: 'channel',
        channelId: message.recipient.stream.id,
        channelName: message.recipient.stream.name,
        topic: message.subject,
      }
    : {
        kind: 'direct',
        participants: (
          await ctx.db.$queryRaw<{ id: number; full_name: string }[]>(Prisma.sql`
            SELECT u.id, u.full_name FROM subscriptions s JOIN users u ON u.id = s.user_id
            WHERE s.recipient_id = ${message.recipientId} ORDER BY u.id`)
        ).map((u) => ({ id: u.id, fullName: u.full_name })),
      };
  return {
    id: message.id,
    sender: {
      id: message.sender.id,
      email: message.sender.email,
      fullName: message.sender.fullName,
      avatarUrl: avatar.startsWith('/')
        ? `${realmUrl(message.realm.stringId, ctx.config)}${avatar}`
        : avatar,
    },
    dateSentSeconds: Math.floor(message.dateSent.getTime() / 1000),
    renderedContent: message.renderedContent,
    place,
  };
}

/**
 * Job handler (push-message): one push per recipient of the message, through the bouncer. Each
 * recipient's copy is locked while its push is sent and then marked with Zulip's
 * active_mobile_push_notification flag, so a retried or repeated job never pushes the same
 * message twice to the same user, and a copy read meanwhile is not pushed. A bouncer that cannot
 * be reached fails the job after trying everyone (BullMQ retries it with backoff, and those
 * already pushed are skipped); a bouncer that refuses a push is not asked again.
 */
export async function sendPushNotifications(
  ctx: AppContext,
  payload: PushMessagePayload,
): Promise<{ pushed: number }> {
  const bouncer = ctx.config.pushBouncer;
  if (!bouncer) return { pushed: 0 };
  const message = await loadPushMessage(ctx, payload.messageId);
  if (!message) return { pushed: 0 };
  let pushed = 0;
  // Set by the lanes: a `let` set only inside them would stay narrowed to its first `null`.
  const outcome: { failure?: unknown; retryLater?: BouncerError } = {};
  // A few recipients at a time: each holds a database connection while the bouncer answers.
  const waiting = [...payload.recipients];
  const lane = async () => {
    for (let next = waiting.shift(); next; next = waiting.shift()) {
      try {
        const trigger = next.trigger as TriggerName;
        if (await pushOne(ctx, { bouncer, message, userId: next.userId, trigger })) {
          pushed += 1;
        }
      } catch (err) {
        if (err instanceof BouncerError && err.kind === 'retry') outcome.retryLater = err;
        else outcome.failure = err;
      }
    }
  };
  await Promise.all(Array.from({ length: PUSH_LANES }, lane));
  if ('failure' in outcome) throw outcome.failure;
  if (outcome.retryLater) throw outcome.retryLater;
  return { pushed };
}

/** One recipient's push of a message, through the bouncer. */
interface RecipientPush {
  bouncer: PushBouncerConfig;
  message: PushMessage;
  userId: number;
  trigger: TriggerName;
}

async function pushOne(
  ctx: AppContext,
  { bouncer, message, userId, trigger }: RecipientPush,
): Promise<boolean> {
  return ctx.db.$transaction(
    async (tx) => {
      const [copy] = await tx.$queryRaw<{ flags: bigint }[]>(Prisma.sql`
        SELECT flags FROM user_messages WHERE user_id = ${userId} AND message_id = ${message.id}
        FOR UPDATE`);
      const done = Flag.read | Flag.active_mobile_push_notification;
      if (!copy || (Number(copy.flags) & done) !== 0) return false;
      const target = await pushTarget(ctx, tx, userId);
      if (!target || target.androidTokens.length + target.appleTokens.length === 0) return false;
      const gcm = gcmMessagePayload(target.realm, userId, message);
      try {
        await notifyThroughBouncer(ctx, bouncer, target, {
          gcm_payload: gcm.payload,
          gcm_options: gcm.options,
          apns_payload: apnsMessagePayload({ realm: target.realm, userId, message, trigger }),
        });
      } catch (err) {
        if (err instanceof BouncerError && err.kind === 'rejected') {
          ctx.log.warn('push', 'push bouncer refused a notification', {
            userId,
            messageId: message.id,
            code: err.code,
            error: err.message,
          });
          return false;
        }
        throw err;
      }
      await tx.$executeRaw(Prisma.sql`
        UPDATE user_messages SET flags = flags | ${Flag.active_mobile_push_notification}
        WHERE user_id = ${userId} AND message_id = ${message.id}`);
      return true;
    },
    { timeout: 45_000, maxWait: 10_000 },
  );
}
