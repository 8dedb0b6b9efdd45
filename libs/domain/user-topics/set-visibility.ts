import { lockRow } from '../../db/locks';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { Permission, requireAccess } from '../permissions/access';
import { equalsIgnoringCase } from '../../db/text-match';
import { userTopicEvent } from '../../protocol/events/user-topic';
import { emitMutedTopics } from './muted-topics';

/** Per-topic visibility policies (Zulip's codes). */
export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export const VISIBILITY_POLICIES: number[] = Object.values(VisibilityPolicy);

export interface SetTopicVisibilityInput {
  user: User;
  realm: Realm;
  streamId: number;
  topic: string;
  visibilityPolicy: number;
}

/**
 * `POST /user_topics`: mutes, unmutes, follows or resets one topic for the caller, matching the
 * topic name case-insensitively, and sends a `user_topic` event.
 */
export async function setTopicVisibility(
  ctx: AppContext,
  input: SetTopicVisibilityInput,
): Promise<void> {
  const { user, realm } = input;
  const stream = await ctx.db.stream.findFirst({
    where: { id: input.streamId, realmId: realm.id },
  });
  if (!stream || stream.recipientId === null) throw badRequest('Invalid channel ID');
  if (input.visibilityPolicy !== VisibilityPolicy.INHERIT) {
    await requireAccess(ctx.db, {
      auth: { user },
      permission: Permission.ChannelRead,
      ids: [stream.id],
    });
  }
  const recipientId = stream.recipientId;
  const now = new Date();
  await inTransaction(ctx, async (tx, events) => {
    // A user's topic settings change one request at a time (under the user's row).
    await lockRow(tx, 'users', user.id);
    const existing = await tx.userTopic.findMany({
      where: {
        userId: user.id,
        streamId: stream.id,
        topicName: equalsIgnoringCase(input.topic),
      },
      select: { id: true },
    });
    if (input.visibilityPolicy === VisibilityPolicy.INHERIT) {
      await tx.userTopic.deleteMany({ where: { id: { in: existing.map((r) => r.id) } } });
    } else if (existing.length) {
      await tx.userTopic.updateMany({
        where: { id: { in: existing.map((r) => r.id) } },
        data: {
          visibilityPolicy: input.visibilityPolicy,
          lastUpdated: now,
          topicName: input.topic,
        },
      });
    } else {
      await tx.userTopic.create({
        data: {
          userId: user.id,
          streamId: stream.id,
          recipientId,
          topicName: input.topic,
          visibilityPolicy: input.visibilityPolicy,
          lastUpdated: now,
        },
      });
    }
    await emitMutedTopics(tx, events, realm.id, user.id);
    await events.emit(
      realm.id,
      userTopicEvent({
        stream_id: stream.id,
        topic_name: input.topic,
        last_updated: Math.floor(now.getTime() / 1000),
        visibility_policy: input.visibilityPolicy,
      }),
      [user.id],
    );
  });
}
