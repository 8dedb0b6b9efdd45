import type { Realm, Stream, User } from '../../../generated/prisma/client';
import type { Tx } from '../../db/client';
import type { EventSink } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import { canManageDefaultChannels } from '../permissions/channels';
import { isPrivateChannel } from '../permissions/channel-kinds';
import { formatChannels } from './format-channel';
import { defaultStreamsEvent } from '../../protocol/events/default-streams';

/**
 * Adds or removes a default channel and tells everyone the new list (the whole list, as Zulip's
 * `default_streams` event carries it).
 */
export async function setDefaultChannel(
  tx: Tx,
  events: EventSink,
  {
    actor,
    realm,
    stream,
    isDefault,
  }: { actor: User; realm: Realm; stream: Stream; isDefault: boolean },
): Promise<void> {
  if (!canManageDefaultChannels(actor)) throw badRequest('Must be an organization administrator');
  if (isDefault) {
    if (isPrivateChannel(stream)) throw badRequest('Private channels cannot be made default.');
    await tx.defaultStream.upsert({
      where: { streamId: stream.id },
      create: { realmId: realm.id, streamId: stream.id },
      update: {},
    });
  } else {
    await tx.defaultStream.deleteMany({ where: { streamId: stream.id } });
  }
  const defaults = await tx.defaultStream.findMany({
    where: { realmId: realm.id },
    include: { stream: true },
    orderBy: { streamId: 'asc' },
  });
  const users = await tx.user.findMany({
    where: { realmId: realm.id, isActive: true },
    select: { id: true },
  });
  await events.emit(
    realm.id,
    defaultStreamsEvent({
      default_streams: await formatChannels(
        tx,
        defaults.map((d) => d.stream),
      ),
    }),
    users.map((u) => u.id),
  );
}
