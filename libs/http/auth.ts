import type { IncomingMessage } from 'node:http';
import type { Realm, User } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import { realmForHost, subdomainOf } from '../domain/realms/resolve-host';
import { API_KEY_LENGTH, hashApiKey } from '../domain/users/api-keys';
import {
  badRequest,
  invalidApiKey,
  nonexistentSubdomain,
  realmDeactivated,
  unauthorized,
  userDeactivated,
} from '../core/errors';

export interface Principal {
  user: User;
  realm: Realm;
}

/** Splits `Authorization: Basic base64(email:api_key)`; the key never contains ':'. */
export function parseBasicAuth(header: string | undefined): { email: string; apiKey: string } {
  if (!header) throw unauthorized('Missing authorization header for basic auth');
  const [scheme, credentials, ...rest] = header.trim().split(/\s+/);
  if (scheme.toLowerCase() !== 'basic') {
    throw badRequest('This endpoint requires HTTP basic authentication.');
  }
  if (!credentials || rest.length)
    throw unauthorized('Invalid authorization header for basic auth');
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.lastIndexOf(':');
  if (colon < 0) throw unauthorized('Invalid authorization header for basic auth');
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

export async function requestRealm(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers'>,
): Promise<Realm> {
  const realm = await realmForHost(ctx.db, req.headers.host, ctx.config.externalHost);
  if (!realm) throw nonexistentSubdomain();
  return realm;
}

/**
 * Resolves the caller of an authenticated endpoint, refusing bad keys and deactivated accounts.
 * The user and its organization come in one lookup; the host is checked against that
 * organization without another query when it names the organization's own subdomain.
 */
export async function authenticate(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers'>,
): Promise<Principal> {
  const { email, apiKey } = parseBasicAuth(req.headers.authorization);
  if (apiKey.length !== API_KEY_LENGTH) throw invalidApiKey('Malformed API key');
  const found = await ctx.db.user.findUnique({
    where: { apiKeyHash: hashApiKey(apiKey) },
    include: { realm: true },
  });
  const ownHost =
    found !== null &&
    subdomainOf(req.headers.host, ctx.config.externalHost) === found.realm.stringId;
  const realm = ownHost ? found.realm : await requestRealm(ctx, req);
  if (!found || found.email.toLowerCase() !== email.trim().toLowerCase()) throw invalidApiKey();
  const { realm: _realm, ...user } = found;
  void _realm;
  // System bots act only through the server itself (in Zulip they belong to no organization).
  if (user.realmId !== realm.id || user.isSystemBot)
    throw unauthorized('Account is not associated with this subdomain');
  if (realm.deactivated) throw realmDeactivated();
  if (!user.isActive) throw userDeactivated();
  return { user, realm };
}

/**
 * Whether a credential checked earlier still holds as it was: the key is still the user's, the
 * user is active with the same role, and the organization is not deactivated. One narrow query,
 * for re-checking a cached principal without reading both rows again.
 */
export async function stillAuthorized(ctx: AppContext, principal: Principal): Promise<boolean> {
  const rows = await ctx.db.$queryRaw<{ ok: number }[]>`
    SELECT 1 AS ok FROM users u JOIN realms r ON r.id = u.realm_id
    WHERE u.id = ${principal.user.id} AND u.api_key_hash = ${principal.user.apiKeyHash}
      AND u.role = ${principal.user.role} AND u.is_active AND NOT r.deactivated`;
  return rows.length === 1;
}
