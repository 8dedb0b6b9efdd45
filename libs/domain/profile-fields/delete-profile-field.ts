import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { requireRealmAdmin } from '../permissions/users';
import { sendFields } from './list-profile-fields';
import { findField } from './validate-profile-field';

/** `DELETE /realm/profile_fields/{field_id}`: the field and every user's value of it. */
export async function deleteProfileField(
  ctx: AppContext,
  input: { actor: User; realm: Realm; id: number },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    await findField(tx, input.realm.id, input.id);
    await tx.customProfileField.delete({ where: { id: input.id } });
    await sendFields(tx, events, input.realm.id);
  });
}
