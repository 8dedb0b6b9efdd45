import type { Realm, Stream } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { channelAudienceIds } from '../permissions/channels';
import { isPrivateChannel } from '../permissions/channel-kinds';
import { CHANNEL_EVENTS_TOPIC, sendChannelNotice } from './channel-notices';
import { formatChannels } from './format-channel';
import { streamEvent } from '../../protocol/events/stream';

/**
 * `PATCH /streams/{stream_id}` with `is_archived=false` (Zulip's do_unarchive_stream), in the
 * caller's transaction; the caller has checked that the actor administers the channel. The
 * channel keeps its name and subscribers. Clients learn it through a `stream` update of
 * `is_archived` and, like on creation, a `stream` create event (`for_unarchiving`); the
 * notification bot says so in the channel. Returns the notice's message ID.
 */
export async function unarchiveChannel(
  ctx: AppContext,
  tx: Tx,
  events: EventSink,
  realm: Realm,
  stream: Stream,
): Promise<{ stream: Stream; noticeId: number | null }> {
  if (!stream.isArchived) throw badRequest('Channel is not currently deactivated');
  if (isPrivateChannel(stream)) {
    // Subscriptions of deactivated users count: reactivating one restores the access.
    const subscribers = await tx.subscription.count({
      where: { recipientId: stream.recipientId ?? -1, active: true },
    });
    if (subscribers === 0) throw badRequest('Channel is private and have no subscribers');
  }
  const restored = await tx.stream.update({
    where: { id: stream.id },
    // A private channel cannot stay web-public (a state older archiving could leave behind).
    data: { isArchived: false, ...(isPrivateChannel(stream) ? { isWebPublic: false } : {}) },
  });
  const audience = [...(await channelAudienceIds(tx, realm.id, restored))];
  await events.emit(
    realm.id,
    streamEvent({
      op: 'update',
      property: 'is_archived',
      value: false,
      stream_id: restored.id,
      name: restored.name,
    }),
    audience,
  );
  await events.emit(
    realm.id,
    streamEvent({
      op: 'create',
      streams: await formatChannels(tx, [restored]),
      for_unarchiving: true,
    }),
    audience,
  );
  const noticeId = await sendChannelNotice(ctx, tx, events, {
    realm,
    channelId: restored.id,
    topic: CHANNEL_EVENTS_TOPIC,
    content: `Channel #**${restored.name}** has been unarchived.`,
  });
  return { stream: restored, noticeId };
}
