import { createHmac, timingSafeEqual } from 'node:crypto';
import type { User } from '../../../generated/prisma/client';
import { at } from '../../core/at';

/**
 * Password reset links, as Django's PasswordResetTokenGenerator makes Zulip's: nothing is stored.
 * The link names the user (`uidb64`) and carries `<issued at, base 36>-<HMAC>`, the HMAC over the
 * user's id, the time, the current password hash and last login under SECRET_KEY. Resetting the
 * password (or signing in) changes what the HMAC covers, so a link works once; the time makes it
 * expire.
 */
export interface ResetLinkParts {
  uidb64: string;
  token: string;
}

type TokenUser = Pick<User, 'id' | 'realmId' | 'passwordHash' | 'lastLogin'>;

function mac(secretKey: string, user: TokenUser, issuedAt: number): string {
  const key = createHmac('sha256', secretKey).update('password-reset').digest();
  return createHmac('sha256', key)
    .update(
      [
        user.id,
        user.realmId,
        issuedAt,
        user.passwordHash ?? '',
        user.lastLogin ? user.lastLogin.getTime() : '',
      ].join('|'),
    )
    .digest('hex')
    .slice(0, 40);
}

export function makeResetLink(
  secretKey: string,
  user: TokenUser,
  issuedAt: number,
): ResetLinkParts {
  return {
    uidb64: Buffer.from(String(user.id)).toString('base64url'),
    token: `${issuedAt.toString(36)}-${mac(secretKey, user, issuedAt)}`,
  };
}

/** The user id a link names, or null when it is not one of ours. */
export function resetLinkUserId(uidb64: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,16}$/.test(uidb64)) return null;
  const text = Buffer.from(uidb64, 'base64url').toString('utf8');
  return /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : null;
}

/** Whether `token` is the user's current link and younger than `timeoutSeconds`. */
export function resetTokenValid(check: {
  secretKey: string;
  user: TokenUser;
  token: string;
  timeoutSeconds: number;
  nowSeconds?: number;
}): boolean {
  const now = check.nowSeconds ?? Math.floor(Date.now() / 1000);
  const match = /^([0-9a-z]{1,10})-([0-9a-f]{40})$/.exec(check.token);
  if (!match) return false;
  const issuedAt = parseInt(at(match, 1), 36);
  if (issuedAt > now + 60 || now - issuedAt > check.timeoutSeconds) return false;
  const expected = Buffer.from(mac(check.secretKey, check.user, issuedAt));
  return timingSafeEqual(expected, Buffer.from(at(match, 2)));
}
