import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { sendPlaygrounds } from './list-playgrounds';

/** `DELETE /realm/playgrounds/{playground_id}`. */
export async function removePlayground(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    const { count } = await tx.realmPlayground.deleteMany({
      where: { id: input.id, realmId: input.realm.id },
    });
    if (count === 0) throw badRequest('Invalid playground');
    await sendPlaygrounds(tx, events, input.realm.id);
  });
}
