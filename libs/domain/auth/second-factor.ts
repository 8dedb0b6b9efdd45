import type { AppContext } from '../../core/context';
import { ApiError } from '../../core/errors';
import { recordFailedAuthAttempt } from './auth-attempts';
import { decryptTotpSecret, hashBackupCode, totpStep } from './totp';

/**
 * A password sign-in that still needs the second factor (the web client then asks for the
 * code). `/json/login` is this server's own, not Zulip's, so its code is too.
 */
export const twoFactorRequired = (msg: string) =>
  new ApiError('TWO_FACTOR_REQUIRED', msg, {}, 'unauthenticated');

/**
 * Whether `code` is the user's second factor now: a TOTP code of a step later than the last one
 * used, or one of the unused backup codes, which it uses up. Either is taken with a conditional
 * update, so two requests racing with one code cannot both pass.
 */
export async function spendSecondFactor(
  ctx: AppContext,
  userId: number,
  code: string,
): Promise<boolean> {
  const device = await ctx.db.userTwoFactor.findUnique({ where: { userId } });
  if (!device) return false;
  const step = totpStep(decryptTotpSecret(device.secretCiphertext, ctx.config.secretKey), code);
  if (step !== null) {
    const { count } = await ctx.db.userTwoFactor.updateMany({
      where: { userId, lastStep: { lt: step } },
      data: { lastStep: step },
    });
    return count === 1;
  }
  const hash = hashBackupCode(code, ctx.config.secretKey);
  const used = await ctx.db.$executeRaw`
    UPDATE user_two_factor SET backup_code_hashes = array_remove(backup_code_hashes, ${hash})
    WHERE user_id = ${userId} AND ${hash} = ANY(backup_code_hashes)`;
  return used === 1;
}

/**
 * The second step of a password sign-in (Zulip's TWO_FACTOR_AUTHENTICATION_ENABLED login form):
 * for a user with a device, the code must come with the password. Without one the answer says
 * so (and is no failed attempt); a wrong one counts against the address as a wrong password does.
 */
export async function requireSecondFactor(
  ctx: AppContext,
  input: { userId: number; username: string; code: string | undefined },
): Promise<void> {
  if (!ctx.config.twoFactorEnabled) return;
  const device = await ctx.db.userTwoFactor.findUnique({
    where: { userId: input.userId },
    select: { userId: true },
  });
  if (!device) return;
  if (input.code === undefined || input.code.trim() === '') {
    throw twoFactorRequired('Enter the code from your authenticator app, or a backup code.');
  }
  if (!(await spendSecondFactor(ctx, input.userId, input.code))) {
    await recordFailedAuthAttempt(ctx, input.username);
    throw twoFactorRequired('That two-factor code is not valid.');
  }
}
