import type { IncomingMessage } from 'node:http';
import type { Realm, User } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import { sqlPool } from '../db/sql';
import { sessionOf } from './session';
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
  const [scheme = '', credentials, ...rest] = header.trim().split(/\s+/);
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

async function hostRealm(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers'>,
  realmOfHost: HostResolver | undefined,
): Promise<Realm> {
  if (!realmOfHost) return requestRealm(ctx, req);
  const realm = await realmOfHost(req);
  if (!realm) throw nonexistentSubdomain();
  return realm;
}

/** What the credential checks need of a user row and its organization. */
interface CredentialRows {
  user: { email: string; realmId: number; isSystemBot: boolean; isActive: boolean };
  realm: { id: number; deactivated: boolean };
}

/** Zulip's refusals of a key that found a user: wrong email, wrong host, deactivation. */
function checkCredential(email: string, { user, realm }: CredentialRows): void {
  if (user.email.toLowerCase() !== email.trim().toLowerCase()) throw invalidApiKey();
  // System bots act only through the server itself (in Zulip they belong to no organization).
  if (user.realmId !== realm.id || user.isSystemBot)
    throw unauthorized('Account is not associated with this subdomain');
  if (realm.deactivated) throw realmDeactivated();
  if (!user.isActive) throw userDeactivated();
}

/** Basic auth's email and key hash, or the same two from the browser session `sessionAuth` found. */
function basicCredential(req: Pick<IncomingMessage, 'headers'>): { email: string; hash: string } {
  const session = sessionOf(req);
  if (session) return { email: session.email, hash: session.apiKeyHash };
  const { email, apiKey } = parseBasicAuth(req.headers.authorization);
  if (apiKey.length !== API_KEY_LENGTH) throw invalidApiKey('Malformed API key');
  return { email, hash: hashApiKey(apiKey) };
}

/** Which organization a request's Host header reaches (null: none). */
export type HostResolver = (req: Pick<IncomingMessage, 'headers'>) => Promise<Realm | null>;

/**
 * Resolves the caller of an authenticated endpoint, refusing bad keys and deactivated accounts.
 * The user and its organization come in one lookup; the host is checked against that
 * organization without another query when it names the organization's own subdomain, and
 * otherwise (a server reached by its address) through `realmOfHost`, which a principal cache
 * answers from memory.
 */
export async function authenticate(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers'>,
  realmOfHost?: HostResolver,
): Promise<Principal> {
  const { email, hash } = basicCredential(req);
  const found = await ctx.db.user.findUnique({
    where: { apiKeyHash: hash },
    include: { realm: true },
  });
  const ownHost =
    found !== null &&
    subdomainOf(req.headers.host, ctx.config.externalHost) === found.realm.stringId;
  const realm = ownHost ? found.realm : await hostRealm(ctx, req, realmOfHost);
  if (!found) throw invalidApiKey();
  const { realm: _realm, ...user } = found;
  void _realm;
  checkCredential(email, { user, realm });
  return { user, realm };
}

/**
 * Who polls an event queue: what the event-queue tier needs of a caller (the user's id, and what
 * a later check compares), without the whole rows.
 */
export interface Poller {
  user: { id: number; apiKeyHash: string; role: number };
  realm: { id: number; deactivated: boolean };
}

/** An organization's row as `authenticate` gives it, read again after it changed (null: gone). */
export const principalRealm = (ctx: AppContext, id: number): Promise<Realm | null> =>
  ctx.db.realm.findUnique({ where: { id } });

/** What a `Poller` holds of its organization, read again after it changed (null: gone). */
export async function pollerRealm(ctx: AppContext, id: number): Promise<Poller['realm'] | null> {
  const { rows } = await sqlPool(ctx).query<{ deactivated: boolean }>(
    'SELECT deactivated FROM realms WHERE id = $1',
    [id],
  );
  const row = rows[0];
  return row ? { id, deactivated: row.deactivated } : null;
}

/**
 * `authenticate` for the event-queue tier, in one plain SQL query, so that a process serving polls
 * never loads Prisma. A host that does not name the user's own subdomain (a server reached by IP
 * address, several organizations) is resolved by `realmOfHost` when given; if that is not the
 * user's organization, or none is given, it takes `authenticate`'s path, which refuses it.
 */
export async function identifyPoller(
  ctx: AppContext,
  req: Pick<IncomingMessage, 'headers'>,
  realmOfHost?: HostResolver,
): Promise<Poller> {
  const { email, hash } = basicCredential(req);
  const { rows } = await sqlPool(ctx).query<{
    id: number;
    email: string;
    realm_id: number;
    role: number;
    is_system_bot: boolean;
    is_active: boolean;
    string_id: string;
    deactivated: boolean;
  }>(
    `SELECT u.id, u.email, u.realm_id, u.role, u.is_system_bot, u.is_active, r.string_id,
            r.deactivated
     FROM users u JOIN realms r ON r.id = u.realm_id WHERE u.api_key_hash = $1`,
    [hash],
  );
  const row = rows[0];
  if (!row) throw invalidApiKey();
  if (
    subdomainOf(req.headers.host, ctx.config.externalHost) !== row.string_id &&
    (!realmOfHost || (await realmOfHost(req))?.id !== row.realm_id)
  ) {
    const { user, realm } = await authenticate(ctx, req, realmOfHost);
    return { user, realm };
  }
  const realm = { id: row.realm_id, deactivated: row.deactivated };
  checkCredential(email, {
    user: {
      email: row.email,
      realmId: row.realm_id,
      isSystemBot: row.is_system_bot,
      isActive: row.is_active,
    },
    realm,
  });
  return { user: { id: row.id, apiKeyHash: hash, role: row.role }, realm };
}

/**
 * Whether a credential checked earlier still holds as it was: the key is still the user's, the
 * user is active with the same role, and the organization is not deactivated. One narrow query,
 * for re-checking a cached principal without reading both rows again.
 */
export async function stillAuthorized(ctx: AppContext, principal: Poller): Promise<boolean> {
  const { rowCount } = await sqlPool(ctx).query(
    `SELECT 1 FROM users u JOIN realms r ON r.id = u.realm_id
     WHERE u.id = $1 AND u.api_key_hash = $2 AND u.role = $3 AND u.is_active AND NOT r.deactivated`,
    [principal.user.id, principal.user.apiKeyHash, principal.user.role],
  );
  return rowCount === 1;
}
