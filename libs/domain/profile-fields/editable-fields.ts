import type { Realm, User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { canAdministerUsers } from '../permissions/users';

const NOT_EDITABLE =
  'You are not allowed to change this field. Contact an administrator to update it.';

/** Fields the user may not edit themselves (administrators may edit every field). */
export async function checkEditable(ctx: AppContext, user: User, realm: Realm, ids: number[]) {
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
