import type { User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { passwordIsStrong } from '../auth/password-strength';
import { hashPassword } from './create-user';

/**
 * The operator sets a user's password (a user who forgot theirs, or one created without):
 * the same strength rule as `PATCH /settings`; API keys are untouched.
 */
export async function setPassword(ctx: AppContext, target: User, password: string): Promise<void> {
  if (target.isBot) throw badRequest('Bots do not log in with a password');
  if (!passwordIsStrong(ctx.config, password)) throw badRequest('The password is too weak.');
  await ctx.db.user.update({
    where: { id: target.id },
    data: { passwordHash: await hashPassword(ctx, password) },
  });
}
