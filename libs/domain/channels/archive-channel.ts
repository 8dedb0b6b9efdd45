import type { Realm, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { channelAudienceIds } from '../permissions/channels';
import { CHANNEL_EVENTS_TOPIC, sendChannelNotice } from './channel-notices';
import { formatChannels } from './format-channel';
import { channelForAdmin } from './channel-for-admin';
import { streamEvent } from '../../protocol/events/stream';

/**
 * `DELETE /streams/{stream_id}`: archives the channel. It stops being a default channel and
 * accepts no new messages or subscribers; clients learn it through a `stream` update of
 * `is_archived` (FL 315) and, for older clients, a `stream` delete event. The notification bot
 * says so in the channel, its copies already read for everyone (Zulip since 10.0).
 */
export async function archiveChannel(
  ctx: AppContext,
  input: { actor: User; realm: Realm; streamId: number },
): Promise<void> {
  await inTransaction(ctx, async (tx, events) => {
    const { stream } = await channelForAdmin(tx, input.actor, input.realm, input.streamId);
    if (stream.isArchived) throw badRequest('Channel is already deactivated');
    const audience = [...(await channelAudienceIds(tx, input.realm.id, stream))];
    // Posted while the channel still accepts messages; the archive commits with it.
    await sendChannelNotice(ctx, tx, events, {
      realm: input.realm,
      channelId: stream.id,
      topic: CHANNEL_EVENTS_TOPIC,
      content: `Channel #**${stream.name}** has been archived.`,
      readBy: await subscriberIds(tx, stream.recipientId as number),
    });
    await tx.defaultStream.deleteMany({ where: { streamId: stream.id } });
    await tx.defaultStreamGroupStream.deleteMany({ where: { streamId: stream.id } });
    const archived = await tx.stream.update({
      where: { id: stream.id },
      data: { isArchived: true },
    });
    for (const realmField of [
      'newStreamAnnouncementsStreamId',
      'signupAnnouncementsStreamId',
      'zulipUpdateAnnouncementsStreamId',
    ] as const) {
      if (input.realm[realmField] === stream.id) {
        await tx.realm.update({ where: { id: input.realm.id }, data: { [realmField]: null } });
      }
    }
    await events.emit(
      input.realm.id,
      streamEvent({
        op: 'update',
        property: 'is_archived',
        value: true,
        stream_id: stream.id,
        name: stream.name,
      }),
      audience,
    );
    await events.emit(
      input.realm.id,
      streamEvent({
        op: 'delete',
        streams: await formatChannels(tx, [archived]),
        internal: { archiving: true },
      }),
      audience,
    );
  });
}

async function subscriberIds(tx: Tx, recipientId: number): Promise<number[]> {
  const rows = await tx.subscription.findMany({
    where: { recipientId, active: true },
    select: { userId: true },
  });
  return rows.map((r) => r.userId);
}
