import { Prisma } from '../../../generated/prisma/client';
import type { Db, Tx } from '../../db/client';
import {
  formatUser,
  USER_FORMAT_FIELDS,
  type ApiUser,
  type FormattableUser,
  type ProfileData,
} from './format-user';
import { profileEntry } from './profile-data';
import { at } from '../../core/at';

/** What an organization's user list is made of: its users and their custom profile fields. */
export interface UserListRows {
  /** Every user but the server's own bots, by id. */
  users: FormattableUser[];
  /** Custom profile field values of every user who is not a bot, `{}` for none. */
  profiles: Map<number, ProfileData>;
}

/** Organizations whose rows a process keeps: beyond this many the least recently read goes. */
const MAX_REALMS = 32;

/** By organization: the rows and the stamp of the row versions they were read from. */
const kept = new Map<number, { stamp: string; rows: UserListRows }>();

/** The organization's users and their profile field values, read in one snapshot. */
export async function readUserListRows(db: Db | Tx, realmId: number): Promise<UserListRows> {
  const users = await db.user.findMany({
    where: { realmId, isSystemBot: false },
    orderBy: { id: 'asc' },
    select: USER_FORMAT_FIELDS,
  });
  // Joined on the organization rather than listing thousands of ids as parameters.
  const values = await db.customProfileFieldValue.findMany({
    where: { user: { realmId, isBot: false, isSystemBot: false } },
    select: { userId: true, fieldId: true, value: true, renderedValue: true },
  });
  const profiles = new Map<number, ProfileData>();
  for (const user of users) if (!user.isBot) profiles.set(user.id, {});
  for (const row of values) {
    const data = profiles.get(row.userId);
    if (data) data[String(row.fieldId)] = profileEntry(row.value, row.renderedValue);
  }
  return { users, profiles };
}

/**
 * `readUserListRows` for a caller inside a repeatable-read transaction (`POST /register`, which
 * thousands of clients call at once after a restart): the rows the process last read for the
 * organization, when the transaction's snapshot shows the very same row versions. One query
 * compares them: a digest of every `users` and `custom_profile_field_values` row's id and `xmin`
 * (the transaction that wrote that version), so any insert, update or delete, committed before
 * the snapshot, reads the rows again, and a snapshot never sees rows newer or older than its own.
 * The rows are shared between callers: they only read them.
 */
export async function userListRowsInSnapshot(tx: Tx, realmId: number): Promise<UserListRows> {
  const stamps = await tx.$queryRaw<{ stamp: string }[]>(Prisma.sql`
    SELECT concat_ws('/',
      (SELECT md5(string_agg(u.id || ':' || u.xmin, ',' ORDER BY u.id))
       FROM users u WHERE u.realm_id = ${realmId}),
      (SELECT md5(string_agg(v.id || ':' || v.xmin, ',' ORDER BY v.id))
       FROM custom_profile_field_values v JOIN users u ON u.id = v.user_id
       WHERE u.realm_id = ${realmId})) AS stamp`);
  const { stamp } = at(stamps, 0);
  const hit = kept.get(realmId);
  if (hit?.stamp === stamp) {
    // Most recently read last: the first entry is the one to drop.
    kept.delete(realmId);
    kept.set(realmId, hit);
    return hit.rows;
  }
  const rows = await readUserListRows(tx, realmId);
  kept.delete(realmId);
  if (kept.size >= MAX_REALMS) kept.delete(kept.keys().next().value as number);
  kept.set(realmId, { stamp, rows });
  return rows;
}

/** Lists formatted from one `UserListRows` (so dropped with it), by how they were formatted. */
const formatted = new WeakMap<UserListRows, Map<string, ApiUser[]>>();

export interface EveryoneFormat {
  viewer: { id: number; role: number };
  clientGravatar: boolean;
  includeCustomProfileFields: boolean;
}

/**
 * The rows formatted for a viewer who may see every user. Only the delivery emails depend on the
 * viewer, and on nothing but their role, save their own, which they always see: so the list is
 * formatted once per role and options, and the viewer's own entry again for each viewer.
 */
export function formatForEveryone(rows: UserListRows, options: EveryoneFormat): ApiUser[] {
  const { viewer, clientGravatar, includeCustomProfileFields } = options;
  const format = (user: FormattableUser, as: EveryoneFormat['viewer']) =>
    formatUser(user, {
      viewer: as,
      clientGravatar,
      profileData: includeCustomProfileFields ? rows.profiles.get(user.id) : undefined,
    });
  const byOptions = formatted.get(rows) ?? new Map<string, ApiUser[]>();
  formatted.set(rows, byOptions);
  const key = `${viewer.role}/${clientGravatar}/${includeCustomProfileFields}`;
  let list = byOptions.get(key);
  if (!list) {
    // As a viewer of that role who is none of the users (ids start at 1).
    list = rows.users.map((user) => format(user, { id: 0, role: viewer.role }));
    byOptions.set(key, list);
  }
  const own = rows.users.findIndex((user) => user.id === viewer.id);
  if (own < 0) return list;
  const mine = [...list];
  mine[own] = format(at(rows.users, own), viewer);
  return mine;
}
