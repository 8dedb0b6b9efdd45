import type { User } from '../../../generated/prisma/client';
import { badRequest } from '../../core/errors';
import type { AppContext } from '../../core/context';
import { clearAuthAttempts } from '../auth/auth-attempts';
import { passwordIsStrong } from '../auth/password-strength';
import { endUserSessions } from '../auth/user-sessions';
import { hashPassword } from './create-user';

/**
 * The operator sets a user's password (a user who forgot theirs, or one created without):
 * the same strength rule as `PATCH /settings`; API keys are untouched, the user's browser
 * sessions end and failed sign-ins are forgotten, as a password reset does.
 */
export async function setPassword(ctx: AppContext, target: User, password: string): Promise<void> {
  if (target.isBot) throw badRequest('Bots do not log in with a password');
  if (!passwordIsStrong(ctx.config, password)) throw badRequest('The password is too weak.');
  await ctx.db.user.update({
    where: { id: target.id },
    data: { passwordHash: await hashPassword(ctx, password) },
  });
  await endUserSessions(ctx, target.id);
  await clearAuthAttempts(ctx, target.deliveryEmail);
}
