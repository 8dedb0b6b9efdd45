import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  randomInt,
} from 'node:crypto';
import { authenticator } from 'otplib';

/**
 * RFC 6238 codes as authenticator apps make them (otplib): six digits, 30-second steps, one
 * step of clock drift either way. A code is good once: the step it matched is kept, and only a
 * later step passes next time.
 */
const totp = authenticator.clone({ window: 1 });
const STEP_SECONDS = 30;

export const newTotpSecret = () => totp.generateSecret(20);

/** The `otpauth://` URL the QR code carries (issuer: the organization, account: the address). */
export const otpauthUrl = (secret: string, account: string, issuer: string) =>
  totp.keyuri(account, issuer, secret);

/** The time step `code` belongs to, if it is right for `secret` now; null otherwise. */
export function totpStep(secret: string, code: string): number | null {
  const digits = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(digits)) return null;
  const delta = totp.checkDelta(digits, secret);
  return delta === null ? null : Math.floor(Date.now() / 1000 / STEP_SECONDS) + delta;
}

/** The code of the current step (for the tests and the benchmark, as an app would show it). */
export const currentTotp = (secret: string) => totp.generate(secret);

const secretKey = (serverSecret: string) =>
  createHash('sha256').update(`totp-secret:${serverSecret}`).digest();

/** The TOTP secret at rest: AES-256-GCM under a key derived from the server's secret. */
export function encryptTotpSecret(secret: string, serverSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey(serverSecret), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

export function decryptTotpSecret(stored: string, serverSecret: string): string {
  const [iv, tag, body] = stored.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body) throw new Error('malformed encrypted TOTP secret');
  const decipher = createDecipheriv('aes-256-gcm', secretKey(serverSecret), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}

/** Backup codes: ten of eight characters without look-alikes (about 40 bits each). */
const BACKUP_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const BACKUP_CODE_COUNT = 10;

export function newBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODE_COUNT }, () =>
    Array.from({ length: 8 }, () => BACKUP_ALPHABET[randomInt(BACKUP_ALPHABET.length)]).join(''),
  );
}

/** A backup code as stored: keyed by the server's secret, so a database copy cannot test guesses. */
export const hashBackupCode = (code: string, serverSecret: string) =>
  createHmac('sha256', `backup-code:${serverSecret}`)
    .update(code.replace(/[\s-]+/g, '').toLowerCase())
    .digest('hex');
