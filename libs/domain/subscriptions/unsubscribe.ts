import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { lockRows } from '../../db/locks';
import { inTransaction, type EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import { channelAudienceIds } from '../permissions/channels';
import type { AppContext } from '../../core/context';
import { checkAccess, checkAccessMany, Permission } from '../permissions/access';
import { formatChannels } from '../channels/format-channel';
import { streamEvent } from '../../protocol/events/stream';
import { emitGuestAccessEvents } from './guest-access-events';
import { resolvePrincipals } from './subscribe';
import { equalsIgnoringCase } from '../../db/text-match';
import { subscriptionEvent } from '../../protocol/events/subscription';

export interface UnsubscribeResult {
  removed: string[];
  not_removed: string[];
}

export interface UnsubscribeInput {
  actor: User;
  realm: Realm;
  names: string[];
  principals?: (string | number)[];
}

/**
 * `DELETE /users/me/subscriptions`: unsubscribes the caller or the principals. Removing others
 * needs `can_remove_subscribers_group` (administrators always may).
 */
export async function unsubscribe(
  ctx: AppContext,
  input: UnsubscribeInput,
): Promise<UnsubscribeResult> {
  return inTransaction(ctx, (tx, events) => unsubscribeWithin(tx, events, input));
}

/**
 * One must see each channel (a subscriber always does), and removing others needs
 * `Permission.ChannelRemoveSubscribers` on it.
 */
async function authorizeUnsubscribe(
  tx: Tx,
  {
    actor,
    realm,
    streams,
    others,
  }: { actor: User; realm: Realm; streams: Stream[]; others: boolean },
): Promise<void> {
  const { ChannelMetadata, ChannelRemoveSubscribers } = Permission;
  const access = await checkAccessMany(tx, {
    auth: { user: actor, realm },
    permissions: [ChannelMetadata, ChannelRemoveSubscribers],
    ids: streams.map((s) => s.id),
  });
  for (const stream of streams) {
    if (!access[ChannelMetadata].has(stream.id)) {
      throw badRequest(`Unable to access channel (${stream.name}).`);
    }
    if (others && !access[ChannelRemoveSubscribers].has(stream.id)) {
      throw badRequest('Insufficient permission');
    }
  }
}

/**
 * Whoever of `users`, just unsubscribed, no longer sees the channel at all (a private one, or a
 * public one for a guest) is told it is gone, as Zulip's send_subscription_remove_events does;
 * register then lists it in neither `streams` nor `unsubscribed`. The channel is handed over to
 * the entry point, which asks no query.
 */
async function tellWhoLosesSight(
  tx: Tx,
  events: EventSink,
  { users, stream }: { users: readonly Pick<User, 'id' | 'role' | 'realmId'>[]; stream: Stream },
): Promise<void> {
  const losing: number[] = [];
  for (const user of users) {
    const seen = await checkAccess(tx, {
      auth: { user },
      permission: Permission.ChannelListUnsubscribed,
      ids: [stream.id],
      channels: [stream],
    });
    if (!seen.has(stream.id)) losing.push(user.id);
  }
  if (losing.length === 0) return;
  await events.emit(
    stream.realmId,
    streamEvent({ op: 'delete', streams: await formatChannels(tx, [stream]) }),
    losing,
  );
}

/** The whole of unsubscribing, inside the caller's transaction; nothing is left for after commit. */
export async function unsubscribeWithin(
  tx: Tx,
  events: EventSink,
  input: UnsubscribeInput,
): Promise<UnsubscribeResult> {
  const { actor, realm } = input;
  const streams = [];
  for (const raw of input.names) {
    const name = raw.trim();
    const stream = await tx.stream.findFirst({
      where: { realmId: realm.id, name: equalsIgnoringCase(name) },
    });
    if (!stream) throw badRequest(`Channel(s) (${name}) do not exist`);
    streams.push(stream);
  }
  const targets = input.principals?.length
    ? await resolvePrincipals(tx, realm.id, input.principals)
    : [actor];
  // A user's subscriptions change one request at a time (as in subscribe): of two removals at
  // once, the second finds nothing left to remove.
  await lockRows(
    tx,
    'users',
    targets.map((u) => u.id),
  );
  await authorizeUnsubscribe(tx, {
    actor,
    realm,
    streams,
    others: targets.some((u) => u.id !== actor.id),
  });
  const removed: string[] = [];
  const notRemoved: string[] = [];
  for (const stream of streams) {
    const recipientId = stream.recipientId as number;
    const active = await tx.subscription.findMany({
      where: { recipientId, userId: { in: targets.map((u) => u.id) }, active: true },
      select: { userId: true },
    });
    const userIds = active.map((s) => s.userId);
    for (const u of targets) (userIds.includes(u.id) ? removed : notRemoved).push(stream.name);
    if (userIds.length === 0) continue;
    await tx.subscription.updateMany({
      where: { recipientId, userId: { in: userIds } },
      data: { active: false },
    });
    for (const userId of userIds) {
      await events.emit(
        realm.id,
        subscriptionEvent({
          op: 'remove',
          subscriptions: [{ name: stream.name, stream_id: stream.id }],
        }),
        [userId],
      );
    }
    await tellWhoLosesSight(tx, events, {
      users: targets.filter((u) => userIds.includes(u.id)),
      stream,
    });
    const audience = [...(await channelAudienceIds(tx, realm.id, stream))];
    await events.emit(
      realm.id,
      subscriptionEvent({ op: 'peer_remove', stream_ids: [stream.id], user_ids: userIds }),
      audience.filter((id) => !userIds.includes(id)),
    );
    await emitGuestAccessEvents(
      tx,
      events,
      realm.id,
      'remove',
      userIds.map((userId) => ({ userId, recipientId })),
    );
  }
  return { removed, not_removed: notRemoved };
}
