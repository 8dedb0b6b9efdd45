import type { AppContext } from '../../core/context';
import { sqlPool } from '../../db/sql';
import { perTurnBatch } from '../../core/turn-batch';
import type { User } from '../../../generated/prisma/client';
import { roleFlags } from '../permissions/roles';
import { avatarUrl } from './avatar';
import { profileEntry } from './profile-data';
import { isoMinutes, type ProfileData } from './format-user';

/** `GET /users/me` (spec 2.4). */
export interface OwnUser {
  user_id: number;
  email: string;
  delivery_email: string;
  full_name: string;
  avatar_url: string;
  avatar_version: number;
  is_admin: boolean;
  is_owner: boolean;
  is_guest: boolean;
  is_bot: boolean;
  is_active: boolean;
  role: number;
  timezone: string;
  date_joined: string;
  max_message_id: number;
  profile_data?: ProfileData;
}

interface OwnUserRow {
  user_id: number;
  max_message_id: number | null;
  field_id: number | null;
  value: string | null;
  rendered_value: string | null;
}

/**
 * One query for what the user rows do not hold: the newest message each user received and their
 * custom profile field values (one row per value, or one row of NULLs when there are none). The
 * requests of one event-loop turn share it (one round trip where each took its own: that write
 * to PostgreSQL was a quarter of this endpoint's CPU). Plain SQL: Prisma's own work around a
 * query was another quarter.
 */
async function readOwnUserRows(
  ctx: AppContext,
  users: Pick<User, 'id' | 'isBot'>[],
): Promise<OwnUserRow[][]> {
  // A user's requests of the turn share one row set; bots have no profile fields.
  const withProfile = new Map(users.map((u) => [u.id, !u.isBot]));
  const { rows } = await sqlPool(ctx).query<OwnUserRow>({
    // Named, where allowed: each connection parses and plans it once, then sends only its
    // parameters (a third of the requests per second of this endpoint on the benchmark's box).
    name: ctx.config.databasePreparedStatements ? 'own-users' : undefined,
    text: `SELECT u.id AS user_id,
                  (SELECT max(message_id) FROM user_messages WHERE user_id = u.id) AS max_message_id,
                  v.field_id, v.value, v.rendered_value
           FROM unnest($1::int[], $2::bool[]) AS u(id, with_profile)
           LEFT JOIN custom_profile_field_values v ON v.user_id = u.id AND u.with_profile`,
    values: [[...withProfile.keys()], [...withProfile.values()]],
  });
  const byUser = new Map<number, OwnUserRow[]>();
  for (const row of rows) {
    const mine = byUser.get(row.user_id);
    if (mine) mine.push(row);
    else byUser.set(row.user_id, [row]);
  }
  return users.map((u) => byUser.get(u.id) ?? []);
}

const batchers = new WeakMap<AppContext, (user: User) => Promise<OwnUserRow[]>>();

export async function ownUser(ctx: AppContext, user: User): Promise<OwnUser> {
  let readRows = batchers.get(ctx);
  if (!readRows) {
    readRows = perTurnBatch((users: User[]) => readOwnUserRows(ctx, users));
    batchers.set(ctx, readRows);
  }
  const rows = await readRows(user);
  const result: OwnUser = {
    user_id: user.id,
    email: user.email,
    delivery_email: user.deliveryEmail,
    full_name: user.fullName,
    avatar_url: avatarUrl(user),
    avatar_version: user.avatarVersion,
    ...roleFlags(user),
    is_bot: user.isBot,
    is_active: user.isActive,
    role: user.role,
    timezone: user.timezone,
    date_joined: isoMinutes(user.dateJoined),
    max_message_id: rows[0]?.max_message_id ?? -1,
  };
  if (!user.isBot) {
    const profileData: ProfileData = {};
    for (const row of rows) {
      if (row.field_id === null || row.value === null) continue;
      profileData[String(row.field_id)] = profileEntry(row.value, row.rendered_value);
    }
    result.profile_data = profileData;
  }
  return result;
}
