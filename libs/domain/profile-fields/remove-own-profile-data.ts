import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { setProfileValues } from './set-values';
import { checkEditable } from './editable-fields';

/** `DELETE /users/me/profile_data`: clears the named fields. */
export async function removeOwnProfileData(
  ctx: AppContext,
  input: { user: User; realm: Realm; fieldIds: number[] },
): Promise<void> {
  await checkEditable(ctx, input.user, input.realm, input.fieldIds);
  await inTransaction(ctx, async (tx, events) => {
    await setProfileValues(ctx, tx, events, {
      realm: input.realm,
      user: input.user,
      updates: input.fieldIds.map((id) => ({ id, value: null })),
    });
  });
}
