import type { Realm, Stream, User } from '../generated/prisma/client';
import { inTransaction } from '../libs/events/outbox';
import { insertChannel } from '../libs/domain/channels/insert-channel';
import type { AppContext } from '../libs/core/context';
import { systemGroupIds } from '../libs/domain/groups/system-groups';
import { sendMessage } from '../libs/domain/messages/send-message';
import { insertSubscriptions } from '../libs/domain/subscriptions/insert-subscriptions';
import { randomBytes } from 'node:crypto';

export interface ChannelOptions {
  name?: string;
  inviteOnly?: boolean;
  historyPublicToSubscribers?: boolean;
  subscribers?: User[];
  /** System group name allowed to post (default role:everyone). */
  canSend?: 'role:everyone' | 'role:administrators' | 'role:members';
}

export async function makeChannel(
  ctx: AppContext,
  realm: Realm,
  options: ChannelOptions = {},
): Promise<Stream> {
  return inTransaction(ctx, async (tx) => {
    const groups = await systemGroupIds(tx, realm.id);
    const stream = await insertChannel(tx, groups, {
      realmId: realm.id,
      name: options.name ?? `chan-${randomBytes(3).toString('hex')}`,
      description: '',
      renderedDescription: '',
      creatorId: null,
      inviteOnly: options.inviteOnly,
      historyPublicToSubscribers: options.historyPublicToSubscribers,
      canSendMessageGroupId: groups[options.canSend ?? 'role:everyone'],
    });
    await insertSubscriptions(
      tx,
      (options.subscribers ?? []).map((u) => ({ userId: u.id, recipientId: stream.recipientId! })),
    );
    return stream;
  });
}

export async function subscribe(ctx: AppContext, stream: Stream, users: User[]): Promise<void> {
  await inTransaction(ctx, (tx) =>
    insertSubscriptions(
      tx,
      users.map((u) => ({ userId: u.id, recipientId: stream.recipientId! })),
    ),
  );
}

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
