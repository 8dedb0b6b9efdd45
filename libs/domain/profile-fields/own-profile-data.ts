import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canAdministerUsers } from '../permissions/users';
import { setProfileValues, type ProfileDataUpdate } from './set-values';

const NOT_EDITABLE =
  'You are not allowed to change this field. Contact an administrator to update it.';

/** Fields the user may not edit themselves (administrators may edit every field). */
async function checkEditable(ctx: AppContext, user: User, realm: Realm, ids: number[]) {
  const fields = await ctx.db.customProfileField.findMany({
    where: { realmId: realm.id, id: { in: ids } },
  });
  const byId = new Map(fields.map((f) => [f.id, f]));
  for (const id of ids) {
    const field = byId.get(id);
    if (!field) throw badRequest(`Field id ${id} not found.`);
    if (!field.editableByUser && !canAdministerUsers(user)) throw badRequest(NOT_EDITABLE);
  }
}

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
