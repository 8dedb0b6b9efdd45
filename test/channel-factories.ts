import { randomBytes } from 'node:crypto';
import type { Realm, Stream, User } from '../generated/prisma/client';
import { insertChannel } from '../libs/domain/channels/insert-channel';
import type { AppContext } from '../libs/core/context';
import { systemGroupIds } from '../libs/domain/groups/system-groups';
import { insertSubscriptions } from '../libs/domain/subscriptions/insert-subscriptions';
import { inTransaction } from '../libs/events/outbox';

export interface ChannelOptions {
  name?: string;
  inviteOnly?: boolean;
  historyPublicToSubscribers?: boolean;
  /** Subscribed at creation (default: nobody). */
  subscribers?: User[];
  /** System group name allowed to post (default role:everyone). */
  canSend?: 'role:everyone' | 'role:administrators' | 'role:members';
}

/** Inserts a channel and its subscriptions as rows, without events or notices. */
export async function makeChannel(
  ctx: AppContext,
  realm: Pick<Realm, 'id'>,
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

/** Subscribes users to a channel as rows, without events. */
export async function addSubscribers(
  ctx: AppContext,
  stream: Stream,
  users: User[],
): Promise<void> {
  await inTransaction(ctx, (tx) =>
    insertSubscriptions(
      tx,
      users.map((u) => ({ userId: u.id, recipientId: stream.recipientId! })),
    ),
  );
}

/**
 * Removes fields newer than the OpenAPI reference (feature level 247) from each object of a
 * response list, so the rest can be checked against the reference exactly.
 */
export function withoutNestedFields<T extends Record<string, unknown>>(
  body: T,
  listKey: string,
  fields: string[],
): T {
  const list = body[listKey];
  if (!Array.isArray(list)) return body;
  return {
    ...body,
    [listKey]: list.map((item: Record<string, unknown>) => {
      const copy = { ...item };
      for (const f of fields) delete copy[f];
      return copy;
    }),
  };
}

export { NEWER_CHANNEL_FIELDS } from './openapi';
