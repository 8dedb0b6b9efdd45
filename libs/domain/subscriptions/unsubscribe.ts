import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { lockRows } from '../../db/locks';
import { inTransaction, type EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import { channelAudienceIds } from '../permissions/channels';
import type { AppContext } from '../../core/context';
import { canSeeUnsubscribed } from '../permissions/channels';
import { checkAccess, Permission } from '../permissions/access';
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
  { actor, streams, others }: { actor: User; streams: Stream[]; others: boolean },
): Promise<void> {
  const auth = { user: actor };
  const ids = streams.map((s) => s.id);
  const visible = await checkAccess(tx, { auth, permission: Permission.ChannelMetadata, ids });
  const removable = others
    ? await checkAccess(tx, { auth, permission: Permission.ChannelRemoveSubscribers, ids })
    : null;
  for (const stream of streams) {
    if (!visible.has(stream.id)) throw badRequest(`Unable to access channel (${stream.name}).`);
    if (removable && !removable.has(stream.id)) throw badRequest('Insufficient permission');
  }
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
    // Whoever no longer sees the channel at all (a private one, or a public one for a guest) is
    // told it is gone, as Zulip's send_subscription_remove_events does; register then lists it
    // in neither `streams` nor `unsubscribed`.
    const losing = targets.filter((u) => userIds.includes(u.id) && !canSeeUnsubscribed(u, stream));
    if (losing.length) {
      await events.emit(
        realm.id,
        streamEvent({ op: 'delete', streams: await formatChannels(tx, [stream]) }),
        losing.map((u) => u.id),
      );
    }
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
