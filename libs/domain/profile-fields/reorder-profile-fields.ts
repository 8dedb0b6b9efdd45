import { lockRow } from '../../db/locks';
import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { sendFields } from './list-profile-fields';

/** `PATCH /realm/profile_fields`: `order` lists every field ID once. */
export async function reorderProfileFields(
  ctx: AppContext,
  input: { actor: User; realm: Realm; order: number[] },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    // The organization's profile fields change one request at a time (under its row).
    await lockRow(tx, 'realms', input.realm.id);
    const rows = await tx.customProfileField.findMany({
      where: { realmId: input.realm.id },
      select: { id: true },
    });
    const ids = new Set(rows.map((r) => r.id));
    if (
      new Set(input.order).size !== input.order.length ||
      input.order.length !== ids.size ||
      input.order.some((id) => !ids.has(id))
    ) {
      throw badRequest('Invalid order mapping.');
    }
    for (const [index, id] of input.order.entries()) {
      await tx.customProfileField.update({ where: { id }, data: { order: index + 1 } });
    }
    await sendFields(tx, events, input.realm.id);
  });
}
