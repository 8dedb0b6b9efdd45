import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { setTopicVisibility, VisibilityPolicy } from './set-visibility';
import { equalsIgnoringCase } from '../../db/text-match';

/**
 * `PATCH /users/me/subscriptions/muted_topics` (deprecated; FL 134 replaced it with
 * `POST /user_topics`): `op` add mutes, remove unmutes; the channel by ID or by name.
 */
export async function updateMutedTopic(
  ctx: AppContext,
  input: {
    user: User;
    realm: Realm;
    streamId?: number;
    streamName?: string;
    topic: string;
    op: 'add' | 'remove';
  },
): Promise<void> {
  const { user, realm } = input;
  if ((input.streamId === undefined) === (input.streamName === undefined)) {
    throw badRequest('Please supply exactly one of stream or stream_id.');
  }
  const stream =
    input.streamId !== undefined
      ? await ctx.db.stream.findFirst({ where: { id: input.streamId, realmId: realm.id } })
      : await ctx.db.stream.findFirst({
          where: { realmId: realm.id, name: equalsIgnoringCase(input.streamName ?? '') },
        });
  if (!stream) throw badRequest('Invalid channel ID');
  const muted = await ctx.db.userTopic.findFirst({
    where: {
      userId: user.id,
      streamId: stream.id,
      topicName: equalsIgnoringCase(input.topic),
      visibilityPolicy: VisibilityPolicy.MUTED,
    },
  });
  if (input.op === 'add' && muted) throw badRequest('Topic already muted');
  if (input.op === 'remove' && !muted) throw badRequest('Topic is not muted');
  await setTopicVisibility(ctx, {
    user,
    realm,
    streamId: stream.id,
    topic: input.topic,
    visibilityPolicy: input.op === 'add' ? VisibilityPolicy.MUTED : VisibilityPolicy.INHERIT,
  });
}
