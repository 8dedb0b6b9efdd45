import { createCipheriv, randomBytes } from 'node:crypto';
import type { AppContext } from '../../core/context';
import { generateApiKey } from '../users/api-keys';

/**
 * Zulip's desktop sign-in (`finish_desktop_flow`, `log_into_subdomain`): the app opens the
 * sign-in in the system browser with `desktop_flow_otp`, a 256-bit key in hex. At the end the
 * browser shows a one-time login token encrypted under that key (AES-GCM; hex of the 12-byte IV,
 * the ciphertext and its tag), which the user copies into the app; the app decrypts it and opens
 * `/accounts/login/subdomain/<token>` to get its own session. The token lives 15 seconds, once.
 */
export const LOGIN_TOKEN_SECONDS = 15;

export interface LoginTokenData {
  userId: number;
  realmId: number;
  next: string;
}

const tokenKey = (ctx: AppContext, token: string) => `${ctx.config.redisPrefix}login-key:${token}`;

/** A new token, shaped like an API key as Zulip's are (the app checks that shape). */
export async function storeLoginToken(ctx: AppContext, data: LoginTokenData): Promise<string> {
  const token = generateApiKey();
  await ctx.redis.set(tokenKey(ctx, token), JSON.stringify(data), 'EX', LOGIN_TOKEN_SECONDS);
  return token;
}

/** Takes a token out (a second use finds nothing). */
export async function takeLoginToken(
  ctx: AppContext,
  token: string,
): Promise<LoginTokenData | null> {
  if (!/^[A-Za-z0-9]{32}$/.test(token)) return null;
  const stored = await ctx.redis.getdel(tokenKey(ctx, token));
  return stored ? (JSON.parse(stored) as LoginTokenData) : null;
}

/** The token encrypted for the app: hex(iv || AES-256-GCM(token) || tag), as Zulip sends it. */
export function desktopFlowData(otp: string, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(otp, 'hex'), iv);
  const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('hex');
}
