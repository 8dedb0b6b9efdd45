import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { setProfileValues, type ProfileDataUpdate } from './set-values';
import { checkEditable } from './editable-fields';

/** `PATCH /users/me/profile_data`. */
export async function updateOwnProfileData(
  ctx: AppContext,
  input: { user: User; realm: Realm; data: ProfileDataUpdate[] },
): Promise<void> {
  await checkEditable(
    ctx,
    input.user,
    input.realm,
    input.data.map((d) => d.id),
  );
  await inTransaction(ctx, async (tx, events) => {
    await setProfileValues(ctx, tx, events, {
      realm: input.realm,
      user: input.user,
      updates: input.data,
    });
  });
}
