import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { checkLinkifier, checkUniquePattern, findLinkifier } from './validate-linkifier';
import { sendLinkifiers } from './list-linkifiers';

/** `PATCH /realm/filters/{filter_id}`. */
export async function updateLinkifier(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number; pattern: string; urlTemplate: string },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    await findLinkifier(tx, input.realm.id, input.id);
    checkLinkifier(input.pattern, input.urlTemplate);
    await checkUniquePattern(tx, input.realm.id, input.pattern, input.id);
    await tx.realmFilter.update({
      where: { id: input.id },
      data: { pattern: input.pattern, urlTemplate: input.urlTemplate },
    });
    await sendLinkifiers(tx, events, input.realm.id);
  });
}
