import type { Realm } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { rateLimited } from '../../core/errors';
import { Jobs, writeJob } from '../../jobs';
import { redisLimiter } from '../../redis/limiter';
import { normalizeEmail } from '../users/validate';
import { realmAllows } from './methods';

const HOUR = 3600;
const DAY = 86400;

/** Takes one point from the counter, or refuses with the time until it frees one. */
async function take(
  ctx: AppContext,
  limit: { name: string; points: number; window: number; key: string },
) {
  try {
    await redisLimiter(ctx, limit.name, limit.points, limit.window).consume(limit.key);
  } catch (err) {
    if (err instanceof Error) throw err;
    throw rateLimited(Math.ceil((err as { msBeforeNext: number }).msBeforeNext / 1000));
  }
}

/**
 * Zulip's password reset form: the requester always gets the same answer, whether or not the
 * address has an account; what differs is the email the address itself receives (the link, or a
 * note that there is no active account here). Limited per address (2 an hour, 5 a day) and per
 * client address, as Zulip's password_reset_form_by_email and sends_email_by_ip.
 */
export async function requestPasswordReset(
  ctx: AppContext,
  input: { realm: Realm; email: string; ip: string },
): Promise<void> {
  const { realm } = input;
  const email = normalizeEmail(input.email);
  if (!ctx.config.passwordAuthEnabled || !realmAllows(realm, 'Email') || realm.deactivated) {
    ctx.log.info('auth', 'password reset asked where password sign-in is off', {
      realmId: realm.id,
    });
    return;
  }
  const limits = ctx.config.rateLimit;
  const perHour = limits.passwordResetPerHour;
  await take(ctx, { name: 'password-reset-hour', points: perHour, window: HOUR, key: email });
  const perDay = limits.passwordResetPerDay;
  await take(ctx, { name: 'password-reset-day', points: perDay, window: DAY, key: email });
  const byIp = limits.sendsEmailByIpPerDay;
  await take(ctx, { name: 'sends-email-by-ip', points: byIp, window: DAY, key: input.ip });
  const user = await ctx.db.user.findFirst({
    where: { realmId: realm.id, deliveryEmail: email, isBot: false },
    select: { id: true, isActive: true },
  });
  const issuedAt = Math.floor(Date.now() / 1000);
  await ctx.db.$transaction((tx) =>
    user?.isActive
      ? writeJob(tx, Jobs.sendEmail, { kind: 'password-reset', userId: user.id, issuedAt })
      : writeJob(tx, Jobs.sendEmail, {
          kind: 'password-reset-no-account',
          realmId: realm.id,
          email,
          deactivated: user !== null,
        }),
  );
}
