import { Prisma, type Realm, type Stream, type User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction, type EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { checkAccess, Permission, requireAccess } from '../permissions/access';
import { isHistoryPublicToSubscribers } from '../permissions/channel-kinds';
import { requireRealmAdmin } from '../permissions/users';
import { VisibilityPolicy } from '../user-topics/set-visibility';
import { deleteMessagesInTransaction } from './delete-message';
import { emptyTopicDisplayName } from './topic-name';
import { emitMutedTopics } from '../user-topics/muted-topics';
import { userTopicEvent } from '../../protocol/events/user-topic';

/** Zulip's RETENTION_STREAM_MESSAGE_BATCH_SIZE, and how long one request keeps deleting. */
const DEFAULT_LIMITS = { batchSize: 100, timeBudgetMs: 50_000 };

export interface DeleteTopicInput {
  actor: User;
  realm: Realm;
  streamId: number;
  topicName: string;
  /** Tests shrink these to see a partial deletion. */
  limits?: { batchSize: number; timeBudgetMs: number };
}

/**
 * `POST /streams/{stream_id}/delete_topic` (administrators): deletes the topic's messages the
 * caller can read, newest first, one transaction per batch, so a huge topic makes progress even
 * when the request runs out of time; `complete` is false then (FL 211) and the client repeats.
 */
export async function deleteTopic(
  ctx: AppContext,
  input: DeleteTopicInput,
): Promise<{ complete: boolean }> {
  const { actor, realm } = input;
  requireRealmAdmin(actor);
  const stream = await ctx.db.stream.findFirst({
    where: { id: input.streamId, realmId: realm.id },
  });
  if (!stream || stream.recipientId === null) throw badRequest('Invalid channel ID');
  const auth = { user: actor };
  await requireAccess(ctx.db, { auth, permission: Permission.ChannelTopics, ids: [stream.id] });
  const recipientId = stream.recipientId;
  // Older clients name the empty topic by its display name.
  const topic = input.topicName === emptyTopicDisplayName(realm) ? '' : input.topicName;
  const fullHistory = (
    await checkAccess(ctx.db, { auth, permission: Permission.ChannelHistory, ids: [stream.id] })
  ).has(stream.id);
  const { batchSize, timeBudgetMs } = input.limits ?? DEFAULT_LIMITS;
  const deadline = Date.now() + timeBudgetMs;

  for (;;) {
    const done = await inTransaction(ctx, async (tx, events) => {
      // Protected history: only the messages the caller received.
      const batch = await tx.$queryRaw<{ id: number }[]>(Prisma.sql`
        SELECT m.id FROM messages m
        ${fullHistory ? Prisma.empty : Prisma.sql`JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${actor.id}`}
        WHERE m.recipient_id = ${recipientId} AND m.is_channel_message
          AND lower(m.subject) = lower(${topic})
        ORDER BY m.id DESC LIMIT ${batchSize}
        FOR UPDATE OF m`);
      if (batch.length === 0) return true;
      const messages = await tx.message.findMany({
        where: { id: { in: batch.map((r) => r.id) } },
        select: { id: true, recipientId: true, subject: true, isChannelMessage: true },
      });
      await deleteMessagesInTransaction(tx, events, realm.id, messages);
      return false;
    });
    if (done) break;
    if (Date.now() >= deadline) return { complete: false };
  }
  await inTransaction(ctx, (tx, events) =>
    resetTopicVisibility(tx, events, realm.id, { ...stream, recipientId }, topic),
  );
  return { complete: true };
}

/**
 * The topic no longer exists, so users' mute/follow settings for it go, except, in a channel with
 * protected history, for users who still have messages of that topic (Zulip does the same).
 */
async function resetTopicVisibility(
  tx: Tx,
  events: EventSink,
  realmId: number,
  stream: Pick<Stream, 'id' | 'historyPublicToSubscribers'> & { recipientId: number },
  topic: string,
): Promise<void> {
  const rows = await tx.$queryRaw<{ id: number; user_id: number }[]>(Prisma.sql`
    SELECT ut.id, ut.user_id FROM user_topics ut
    WHERE ut.stream_id = ${stream.id} AND lower(ut.topic_name) = lower(${topic})
      ${
        isHistoryPublicToSubscribers(stream)
          ? Prisma.empty
          : Prisma.sql`AND NOT EXISTS (
              SELECT 1 FROM user_messages um JOIN messages m ON m.id = um.message_id
              WHERE um.user_id = ut.user_id AND m.recipient_id = ${stream.recipientId}
                AND m.is_channel_message AND lower(m.subject) = lower(${topic}))`
      }`);
  if (rows.length === 0) return;
  await tx.userTopic.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
  const now = Math.floor(Date.now() / 1000);
  for (const userId of new Set(rows.map((r) => r.user_id))) {
    await emitMutedTopics(tx, events, realmId, userId);
    await events.emit(
      realmId,
      userTopicEvent({
        stream_id: stream.id,
        topic_name: topic,
        last_updated: now,
        visibility_policy: VisibilityPolicy.INHERIT,
      }),
      [userId],
    );
  }
}
