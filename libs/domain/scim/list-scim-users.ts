import type { Realm, User } from '../../../generated/prisma/client';
import type { AppContext } from '../../core/context';
import { scimBadRequest } from './scim-errors';
import { at } from '../../core/at';

/** The most users one page returns (ServiceProviderConfig's filter.maxResults). */
export const SCIM_MAX_RESULTS = 100;

/**
 * The one filter Zulip's SCIM server answers: `userName eq "<address>"` (attribute and operator
 * case-insensitive, the value a JSON string). The address compares without case.
 */
export function parseUserNameFilter(filter: string): string {
  const match = /^\s*userName\s+eq\s+("(?:[^"\\]|\\.)*")\s*$/i.exec(filter);
  if (!match) {
    throw scimBadRequest(
      'Only filter=userName eq "<email address>" is supported.',
      'invalidFilter',
    );
  }
  try {
    return (JSON.parse(at(match, 1)) as string).trim().toLowerCase();
  } catch {
    throw scimBadRequest('The filter value is not a valid string.', 'invalidFilter');
  }
}

const pageNumber = (name: string, value: string | undefined, fallback: number) => {
  if (value === undefined) return fallback;
  if (!/^-?\d{1,9}$/.test(value))
    throw scimBadRequest(`${name} must be an integer.`, 'invalidValue');
  return Number(value);
};

/**
 * GET /scim/v2/Users: the organization's people (bots are not the provider's), deactivated ones
 * included as `active: false`, in id order, paged by `startIndex` (1-based; less than 1 counts
 * as 1) and `count` (RFC 7644 §3.4.2.4).
 */
export async function listScimUsers(
  ctx: AppContext,
  input: { realm: Realm; filter?: string; startIndex?: string; count?: string },
): Promise<{ total: number; startIndex: number; users: User[] }> {
  const startIndex = Math.max(1, pageNumber('startIndex', input.startIndex, 1));
  const count = Math.min(
    SCIM_MAX_RESULTS,
    Math.max(0, pageNumber('count', input.count, SCIM_MAX_RESULTS)),
  );
  const email = input.filter === undefined ? null : parseUserNameFilter(input.filter);
  const where = {
    realmId: input.realm.id,
    isBot: false,
    ...(email === null ? {} : { deliveryEmail: email }),
  };
  const [total, users] = await Promise.all([
    ctx.db.user.count({ where }),
    count === 0
      ? Promise.resolve([])
      : ctx.db.user.findMany({ where, orderBy: { id: 'asc' }, skip: startIndex - 1, take: count }),
  ]);
  return { total, startIndex, users };
}
