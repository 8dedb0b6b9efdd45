import { lockRow } from '../../db/locks';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { sendLinkifiers } from './list-linkifiers';

/** `PATCH /realm/linkifiers`: the new order, naming every linkifier exactly once. */
export async function reorderLinkifiers(
  ctx: AppContext,
  input: { actor: User; realm: Realm; orderedIds: number[] },
): Promise<void> {
  requireRealmAdmin(input.actor);
  if (new Set(input.orderedIds).size !== input.orderedIds.length) {
    throw badRequest('The ordered list must not contain duplicated linkifiers');
  }
  await inTransaction(ctx, async (tx, events) => {
    // The organization's linkifiers change one request at a time (under its row).
    await lockRow(tx, 'realms', input.realm.id);
    const rows = await tx.realmFilter.findMany({
      where: { realmId: input.realm.id },
      select: { id: true },
    });
    const existing = new Set(rows.map((r) => r.id));
    if (
      existing.size !== input.orderedIds.length ||
      input.orderedIds.some((id) => !existing.has(id))
    ) {
      throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
    }
    for (const [order, id] of input.orderedIds.entries()) {
      await tx.realmFilter.update({ where: { id }, data: { order } });
    }
    await sendLinkifiers(tx, events, input.realm.id);
  });
}
