import type { AppContext } from '../../../libs/core/context';
import { clearAuthAttempts } from '../../../libs/domain/auth/auth-attempts';
import { parseFlags, requireFlag } from '../args';

/**
 * Zulip's reset_authentication_attempt_count: forgets the failed password attempts of an email,
 * so an account locked by RATE_LIMIT_AUTH_ATTEMPTS may sign in again at once.
 */
export async function unlockUserCommand(ctx: AppContext, argv: string[]) {
  const flags = parseFlags(argv, ['username']);
  const username = requireFlag(flags, 'username').trim().toLowerCase();
  const unlocked = await clearAuthAttempts(ctx, username);
  return { username, unlocked };
}
