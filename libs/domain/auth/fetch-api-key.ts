import bcrypt from 'bcrypt';
import type { Realm } from '../../../generated/prisma/client';
import {
  authenticationFailed,
  passwordAuthDisabled,
  realmDeactivated,
  userDeactivated,
} from '../../core/errors';
import type { AppContext } from '../../core/context';
import { decryptApiKey } from '../users/api-keys';
import { checkAuthAttempts, recordFailedAuthAttempt } from './auth-attempts';

export interface FetchedApiKey {
  api_key: string;
  email: string;
  user_id: number;
}

// A real hash to compare against when the account is missing, so timing does not reveal it.
const DUMMY_HASH = bcrypt.hashSync('not-a-password', 4);

/** `POST /fetch_api_key`: trades an email and password for the account's (unchanged) API key. */
export async function fetchApiKey(
  ctx: AppContext,
  realm: Realm,
  username: string,
  password: string,
): Promise<FetchedApiKey> {
  if (!ctx.config.passwordAuthEnabled) throw passwordAuthDisabled();
  if (realm.deactivated) throw realmDeactivated();
  const email = username.trim().toLowerCase();
  await checkAuthAttempts(ctx, email);
  const user = await ctx.db.user.findFirst({
    where: { realmId: realm.id, OR: [{ deliveryEmail: email }, { email }], isBot: false },
  });
  const ok = await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !user.passwordHash || !ok) {
    await recordFailedAuthAttempt(ctx, email);
    throw authenticationFailed();
  }
  if (!user.isActive) throw userDeactivated();
  await ctx.db.user.update({ where: { id: user.id }, data: { lastLogin: new Date() } });
  return {
    api_key: decryptApiKey(user.apiKeyCiphertext, ctx.config.secretKey),
    email: user.email,
    user_id: user.id,
  };
}
