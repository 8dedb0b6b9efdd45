import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { Flag } from './flags';
import { emptyTopicDisplayName, NO_TOPIC } from './topic-name';
import { applyFlagChange } from './update-flags';
import { equalsIgnoringCase } from '../../db/text-match';

async function unreadIds(tx: Tx, userId: number, where: Prisma.Sql): Promise<number[]> {
  const rows = await tx.$queryRaw<{ message_id: number }[]>(Prisma.sql`
    SELECT um.message_id FROM user_messages um JOIN messages m ON m.id = um.message_id
    WHERE um.user_id = ${userId} AND (um.flags & ${Flag.read}) = 0 AND ${where}
    ORDER BY um.message_id`);
  return rows.map((r) => r.message_id);
}

/** POST /mark_all_as_read: every unread message of the user (done in one transaction). */
export async function markAllAsRead(
  ctx: AppContext,
  user: User,
  realm: Realm,
): Promise<{ complete: boolean }> {
  await inTransaction(ctx, async (tx, events) => {
    const ids = await unreadIds(tx, user.id, Prisma.sql`TRUE`);
    if (ids.length) {
      await applyFlagChange(tx, events, { user, realm, messageIds: ids, flag: 'read', op: 'add' });
    }
  });
  return { complete: true };
}

async function channelFor(ctx: AppContext, user: User, streamId: number) {
  const stream = await ctx.db.stream.findFirst({ where: { id: streamId, realmId: user.realmId } });
  if (!stream) throw badRequest('Invalid channel ID');
  await requireAccess(ctx.db, {
    auth: { user },
    permission: Permission.ChannelTopics,
    ids: [stream.id],
  });
  return stream;
}

/** POST /mark_stream_as_read. */
export async function markChannelAsRead(
  ctx: AppContext,
  user: User,
  realm: Realm,
  streamId: number,
): Promise<void> {
  const stream = await channelFor(ctx, user, streamId);
  await inTransaction(ctx, async (tx, events) => {
    const ids = await unreadIds(tx, user.id, Prisma.sql`m.recipient_id = ${stream.recipientId}`);
    if (ids.length) {
      await applyFlagChange(tx, events, { user, realm, messageIds: ids, flag: 'read', op: 'add' });
    }
  });
}

/** POST /mark_topic_as_read. */
export async function markTopicAsRead(
  ctx: AppContext,
  {
    user,
    realm,
    streamId,
    topicName,
  }: { user: User; realm: Realm; streamId: number; topicName: string },
): Promise<void> {
  const stream = await channelFor(ctx, user, streamId);
  let topic = topicName.trim();
  if (topic === NO_TOPIC || topic === emptyTopicDisplayName(realm)) topic = '';
  const exists = await ctx.db.message.findFirst({
    where: {
      recipientId: stream.recipientId ?? -1,
      subject: equalsIgnoringCase(topic),
    },
    select: { id: true },
  });
  if (!exists) throw badRequest(`No such topic '${topicName}'`);
  await inTransaction(ctx, async (tx, events) => {
    const ids = await unreadIds(
      tx,
      user.id,
      Prisma.sql`m.recipient_id = ${stream.recipientId} AND lower(m.subject) = lower(${topic})`,
    );
    if (ids.length) {
      await applyFlagChange(tx, events, { user, realm, messageIds: ids, flag: 'read', op: 'add' });
    }
  });
}
