import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import type { Tx } from '../../db/client';
import { badRequest } from '../../core/errors';
import { hashPassword } from '../users/create-user';
import { clearAuthAttempts } from './auth-attempts';
import { passwordIsStrong } from './password-strength';
import { resetLinkUserId, resetTokenValid } from './password-reset-token';
import { endUserSessions } from './user-sessions';

export const invalidResetLink = () =>
  badRequest('The password reset link is invalid or has expired. Ask for a new one.');

type Link = { realm: Realm; uidb64: string; token: string };

async function linkUser(ctx: AppContext, link: Link, db: Tx = ctx.db): Promise<User | null> {
  const id = resetLinkUserId(link.uidb64);
  if (id === null) return null;
  const user = await db.user.findUnique({ where: { id } });
  const usable =
    user !== null &&
    user.realmId === link.realm.id &&
    user.isActive &&
    !user.isBot &&
    !link.realm.deactivated &&
    resetTokenValid({
      secretKey: ctx.config.secretKey,
      user,
      token: link.token,
      timeoutSeconds: ctx.config.passwordResetTimeoutSeconds,
    });
  return usable ? user : null;
}

/** The user a reset link is for, while it is still usable (the page shows the form only then). */
export const resetLinkTarget = (ctx: AppContext, link: Link) => linkUser(ctx, link);

/**
 * Sets the password a reset link allows, once: the link is checked again with the user's row
 * locked, so two uses at the same moment cannot both pass. Then, as Zulip, the failed sign-in
 * count of the address is forgotten and every session of the user ends; the API key stays.
 */
export async function resetPassword(
  ctx: AppContext,
  link: Link & { password: string },
): Promise<User> {
  if (!passwordIsStrong(ctx.config, link.password)) throw badRequest('The password is too weak.');
  const passwordHash = await hashPassword(ctx, link.password);
  const user = await ctx.db.$transaction(async (tx) => {
    const id = resetLinkUserId(link.uidb64);
    if (id === null) throw invalidResetLink();
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${id} FOR UPDATE`;
    const found = await linkUser(ctx, link, tx);
    if (!found) throw invalidResetLink();
    return tx.user.update({ where: { id: found.id }, data: { passwordHash } });
  });
  await clearAuthAttempts(ctx, user.deliveryEmail);
  await endUserSessions(ctx, user.id);
  return user;
}
