import type { User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';

export async function targetUser(ctx: AppContext, user: User, mutedUserId: number): Promise<User> {
  if (mutedUserId === user.id) throw badRequest('Cannot mute self');
  const target = await ctx.db.user.findFirst({ where: { id: mutedUserId, realmId: user.realmId } });
  if (!target) throw badRequest('No such user');
  return target;
}
