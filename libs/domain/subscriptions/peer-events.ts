import type { Stream } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { channelAudienceIds } from '../permissions/channels';
import { subscriptionEvent } from '../../protocol/events/subscription';

/**
 * `subscription` peer_add events: each channel's new subscribers, for everyone else who can see
 * its subscribers (Zulip's `send_peer_subscriber_events`). Shared by the subscribe action and user
 * creation, whose default and invited channels count as subscriptions too.
 */
export async function emitPeerAdd(
  tx: Tx,
  events: EventSink,
  realmId: number,
  channels: Pick<Stream, 'id' | 'inviteOnly' | 'isWebPublic' | 'recipientId'>[],
  fresh: { userId: number; recipientId: number }[],
): Promise<void> {
  for (const stream of channels) {
    const newUserIds = fresh
      .filter((p) => p.recipientId === stream.recipientId)
      .map((p) => p.userId);
    if (newUserIds.length === 0) continue;
    const audience = [...(await channelAudienceIds(tx, realmId, stream))];
    const peers = audience.filter((id) => !newUserIds.includes(id));
    await events.emit(
      realmId,
      subscriptionEvent({ op: 'peer_add', stream_ids: [stream.id], user_ids: newUserIds }),
      peers,
    );
  }
}
