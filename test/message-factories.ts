import type { Realm, Stream, User } from '../generated/prisma/client';
import type { AppContext } from '../libs/core/context';
import { sendMessage } from '../libs/domain/messages/send-message';

/** Sends a channel message through the domain action (as an API client: sender copy unread). */
export async function postToChannel(
  ctx: AppContext,
  realm: Realm,
  sender: User,
  stream: Stream,
  topic: string,
  content: string,
): Promise<number> {
  const { id } = await sendMessage(ctx, {
    sender,
    realm,
    type: 'stream',
    to: stream.id,
    topic,
    content,
    clientName: 'test',
  });
  return id;
}

export async function postDirect(
  ctx: AppContext,
  realm: Realm,
  sender: User,
  to: User[],
  content: string,
): Promise<number> {
  const { id } = await sendMessage(ctx, {
    sender,
    realm,
    type: 'direct',
    to: to.map((u) => u.id),
    content,
    clientName: 'test',
  });
  return id;
}
