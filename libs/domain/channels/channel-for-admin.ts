import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { checkAccess, Permission, requireAccess } from '../permissions/access';

/**
 * Loads a channel the actor may administer (`Permission.ChannelAdmin`), with Zulip's errors: a
 * channel the actor cannot see answers like a missing one. `content` says whether the actor may
 * also read its messages (one may administer a private channel without being subscribed).
 */
export async function channelForAdmin(
  tx: Tx,
  actor: User,
  realm: Realm,
  streamId: number,
): Promise<{ stream: Stream; content: boolean }> {
  const stream = await tx.stream.findFirst({ where: { id: streamId, realmId: realm.id } });
  if (!stream) throw badRequest('Invalid channel ID');
  const auth = { user: actor };
  await requireAccess(tx, { auth, permission: Permission.ChannelAdmin, ids: [stream.id] });
  const readable = await checkAccess(tx, {
    auth,
    permission: Permission.ChannelRead,
    ids: [stream.id],
  });
  return { stream, content: readable.has(stream.id) };
}
