import bcrypt from 'bcrypt';
import type { Realm, User } from '../../../generated/prisma/client';
import {
  authenticationFailed,
  passwordAuthDisabled,
  realmDeactivated,
  userDeactivated,
} from '../../core/errors';
import type { AppContext } from '../../core/context';
import { decryptApiKey } from '../users/api-keys';
import { checkAuthAttempts, recordFailedAuthAttempt } from './auth-attempts';
import { ldapLogin } from './ldap-login';
import { ldapEnabled, realmAllows } from './methods';

export interface FetchedApiKey {
  api_key: string;
  email: string;
  user_id: number;
}

const dummyHashes = new Map<number, Promise<string>>();

/**
 * A real hash to compare against when the account is missing or has no password, made once per
 * cost with the configured cost: comparing costs what a real account's comparison costs, so the
 * answer's timing does not reveal which accounts exist.
 */
export function dummyPasswordHash(rounds: number): Promise<string> {
  let hash = dummyHashes.get(rounds);
  if (!hash) {
    hash = bcrypt.hash('not-a-password', rounds);
    dummyHashes.set(rounds, hash);
  }
  return hash;
}

/** `POST /fetch_api_key`: trades an email and password for the account's (unchanged) API key. */
export async function fetchApiKey(
  ctx: AppContext,
  realm: Realm,
  username: string,
  password: string,
): Promise<FetchedApiKey> {
  const emailOn = ctx.config.passwordAuthEnabled && realmAllows(realm, 'Email');
  const ldapOn = ldapEnabled(ctx.config, realm);
  if (!emailOn && !ldapOn) throw passwordAuthDisabled();
  if (realm.deactivated) throw realmDeactivated();
  const email = username.trim().toLowerCase();
  await checkAuthAttempts(ctx, email);
  // LDAP first, then the server's own passwords, as Zulip's AUTHENTICATION_BACKENDS are tried.
  const ldapUser = ldapOn ? await ldapLogin(ctx, { realm, username, password }) : null;
  if (ldapUser) return apiKeyOf(ctx, ldapUser);
  if (!emailOn) {
    await recordFailedAuthAttempt(ctx, email);
    throw authenticationFailed();
  }
  const user = await ctx.db.user.findFirst({
    where: { realmId: realm.id, OR: [{ deliveryEmail: email }, { email }], isBot: false },
  });
  const ok = await bcrypt.compare(
    password,
    user?.passwordHash ?? (await dummyPasswordHash(ctx.config.bcryptRounds)),
  );
  if (!user || !user.passwordHash || !ok) {
    await recordFailedAuthAttempt(ctx, email);
    throw authenticationFailed();
  }
  if (!user.isActive) throw userDeactivated();
  await ctx.db.user.update({ where: { id: user.id }, data: { lastLogin: new Date() } });
  return apiKeyOf(ctx, user);
}

const apiKeyOf = (ctx: AppContext, user: User): FetchedApiKey => ({
  api_key: decryptApiKey(user.apiKeyCiphertext, ctx.config.secretKey),
  email: user.email,
  user_id: user.id,
});
