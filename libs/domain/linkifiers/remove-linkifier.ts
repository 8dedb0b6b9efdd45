import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { sendLinkifiers } from './list-linkifiers';
import { findLinkifier } from './validate-linkifier';

/** `DELETE /realm/filters/{filter_id}`. */
export async function removeLinkifier(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    await findLinkifier(tx, input.realm.id, input.id);
    await tx.realmFilter.delete({ where: { id: input.id } });
    await sendLinkifiers(tx, events, input.realm.id);
  });
}
