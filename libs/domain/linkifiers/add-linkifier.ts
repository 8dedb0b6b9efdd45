import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { checkLinkifier, checkUniquePattern } from './validate-linkifier';
import { sendLinkifiers } from './list-linkifiers';

/** `POST /realm/filters`: adds a linkifier at the end of the order. */
export async function addLinkifier(
  ctx: AppContext,
  input: { actor: User; realm: Realm; pattern: string; urlTemplate: string },
): Promise<number> {
  requireRealmAdmin(input.actor);
  checkLinkifier(input.pattern, input.urlTemplate);
  return inTransaction(ctx, async (tx, events) => {
    await checkUniquePattern(tx, input.realm.id, input.pattern);
    const last = await tx.realmFilter.aggregate({
      where: { realmId: input.realm.id },
      _max: { order: true },
    });
    const row = await tx.realmFilter.create({
      data: {
        realmId: input.realm.id,
        pattern: input.pattern,
        urlTemplate: input.urlTemplate,
        order: (last._max.order ?? -1) + 1,
      },
    });
    await sendLinkifiers(tx, events, input.realm.id);
    return row.id;
  });
}
