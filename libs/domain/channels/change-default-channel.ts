import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { setDefaultChannel } from './set-default-channel';

/** `POST /default_streams` and `DELETE /default_streams` (administrators only). */
export async function changeDefaultChannel(
  ctx: AppContext,
  input: { actor: User; realm: Realm; streamId: number; isDefault: boolean },
): Promise<void> {
  await inTransaction(ctx, async (tx, events) => {
    const stream = await tx.stream.findFirst({
      where: { id: input.streamId, realmId: input.realm.id },
    });
    if (!stream) throw badRequest('Invalid channel ID');
    if (stream.isArchived && input.isDefault) {
      throw badRequest('Archived channels cannot be made default.');
    }
    if (!input.isDefault) {
      const row = await tx.defaultStream.findUnique({ where: { streamId: stream.id } });
      if (!row) throw badRequest('Channel is not a default channel.');
    }
    await setDefaultChannel(tx, events, {
      actor: input.actor,
      realm: input.realm,
      stream,
      isDefault: input.isDefault,
    });
  });
}
