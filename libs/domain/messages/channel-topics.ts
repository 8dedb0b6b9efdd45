import { Prisma, type Realm, type User } from '../../../generated/prisma/client';
import type { Db } from '../../db/client';
import { badRequest } from '../../core/errors';
import { checkAccess, Permission, requireAccess } from '../permissions/access';
import { displayTopic } from './topic-name';

/**
 * GET /users/me/{stream_id}/topics (spec 4.16): topics newest first with their newest message.
 * Where the user may read the channel's history, every message counts; otherwise (protected
 * history) only messages the user received.
 */
export async function channelTopics(
  db: Db,
  input: { user: User; realm: Realm; streamId: number; allowEmptyTopicName: boolean },
): Promise<{ topics: { name: string; max_id: number }[] }> {
  const stream = await db.stream.findFirst({
    where: { id: input.streamId, realmId: input.realm.id },
  });
  if (!stream) throw badRequest('Invalid channel ID');
  const auth = { user: input.user };
  await requireAccess(db, { auth, permission: Permission.ChannelTopics, ids: [stream.id] });
  const fullHistory = (
    await checkAccess(db, { auth, permission: Permission.ChannelHistory, ids: [stream.id] })
  ).has(stream.id);
  const rows = await db.$queryRaw<{ name: string; max_id: number }[]>(Prisma.sql`
    SELECT DISTINCT ON (lower(m.subject)) m.subject AS name, max(m.id) OVER (PARTITION BY lower(m.subject)) AS max_id
    FROM messages m
    ${fullHistory ? Prisma.empty : Prisma.sql`JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${input.user.id}`}
    WHERE m.recipient_id = ${stream.recipientId}
    ORDER BY lower(m.subject), m.id DESC`);
  const topics = rows
    .map((r) => ({
      name: displayTopic(r.name, input.realm, input.allowEmptyTopicName),
      max_id: Number(r.max_id),
    }))
    .sort((a, b) => b.max_id - a.max_id);
  return { topics };
}
