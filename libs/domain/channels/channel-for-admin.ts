import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { channelAccessFor } from '../permissions/channels';

/**
 * Loads a channel the actor may administer, with Zulip's errors: a channel the actor cannot see
 * answers like a missing one. `content` says whether the actor may also read its messages (one
 * may administer a private channel without being subscribed).
 */
export async function channelForAdmin(
  tx: Tx,
  actor: User,
  realm: Realm,
  streamId: number,
): Promise<{ stream: Stream; content: boolean }> {
  const stream = await tx.stream.findFirst({ where: { id: streamId, realmId: realm.id } });
  if (!stream) throw badRequest('Invalid channel ID');
  const access = await channelAccessFor(tx, actor, stream, realm);
  if (!access.metadata) throw badRequest('Invalid channel ID');
  if (!access.administer)
    throw badRequest('You do not have permission to administer this channel.');
  return { stream, content: access.content };
}
