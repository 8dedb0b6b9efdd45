import QRCode from 'qrcode';
import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { badRequest } from '../../core/errors';
import { spendSecondFactor } from './second-factor';
import {
  BACKUP_CODE_COUNT,
  encryptTotpSecret,
  hashBackupCode,
  newBackupCodes,
  newTotpSecret,
  otpauthUrl,
  totpStep,
} from './totp';

/** How long a scanned-but-unconfirmed secret waits for its first code. */
const SETUP_SECONDS = 600;

const setupKey = (ctx: AppContext, userId: number) =>
  `${ctx.config.redisPrefix}two-factor-setup:${userId}`;

const requireEnabled = (ctx: AppContext) => {
  if (!ctx.config.twoFactorEnabled) {
    throw badRequest('Two-factor authentication is not enabled on this server.');
  }
};

export async function twoFactorStatus(ctx: AppContext, user: User) {
  const device = await ctx.db.userTwoFactor.findUnique({ where: { userId: user.id } });
  return {
    available: ctx.config.twoFactorEnabled,
    enabled: device !== null,
    backup_codes_left: device?.backupCodeHashes.length ?? 0,
  };
}

/**
 * First step of enrolment: a new secret, kept aside in Redis until a code from it is confirmed,
 * with the `otpauth://` URL and a QR code of it for an authenticator app.
 */
export async function startTwoFactorSetup(ctx: AppContext, user: User, realm: Realm) {
  requireEnabled(ctx);
  if (await ctx.db.userTwoFactor.findUnique({ where: { userId: user.id } })) {
    throw badRequest('Two-factor authentication is already on for your account.');
  }
  const secret = newTotpSecret();
  await ctx.redis.set(setupKey(ctx, user.id), secret, 'EX', SETUP_SECONDS);
  const url = otpauthUrl(secret, user.deliveryEmail, realm.name || 'Zulip');
  return { secret, otpauth_url: url, qr_code: await QRCode.toDataURL(url, { margin: 1 }) };
}

/**
 * Second step: a right code from the new secret turns two-factor on and returns the backup
 * codes, shown this once (only keyed hashes are kept).
 */
export async function confirmTwoFactorSetup(ctx: AppContext, user: User, code: string) {
  requireEnabled(ctx);
  const secret = await ctx.redis.get(setupKey(ctx, user.id));
  if (!secret) throw badRequest('Start the two-factor setup again: it has expired.');
  const step = totpStep(secret, code);
  if (step === null)
    throw badRequest('That code is not right: check your app’s clock and try again.');
  const codes = newBackupCodes();
  // Two confirmations at once: the second finds the row and is told so.
  const { count } = await ctx.db.userTwoFactor.createMany({
    data: {
      userId: user.id,
      secretCiphertext: encryptTotpSecret(secret, ctx.config.secretKey),
      lastStep: step,
      backupCodeHashes: codes.map((c) => hashBackupCode(c, ctx.config.secretKey)),
    },
    skipDuplicates: true,
  });
  if (count === 0) throw badRequest('Two-factor authentication is already on for your account.');
  await ctx.redis.del(setupKey(ctx, user.id));
  return { backup_codes: codes, backup_codes_left: BACKUP_CODE_COUNT };
}

/** Turns two-factor off, on a current code or a backup code (the password alone is not enough). */
export async function disableTwoFactor(ctx: AppContext, user: User, code: string) {
  if (!(await spendSecondFactor(ctx, user.id, code))) {
    throw badRequest('That two-factor code is not valid.');
  }
  await ctx.db.userTwoFactor.delete({ where: { userId: user.id } });
}
