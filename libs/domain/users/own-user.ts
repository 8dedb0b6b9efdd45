import type { AppContext } from '../../core/context';
import { sqlPool } from '../../db/sql';
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

/**
 * One query for what the user row does not hold: the newest message the user received and the
 * custom profile field values (one row per value, or one row of NULLs when there are none).
 * Plain SQL: Prisma's own work around a query was a quarter of this endpoint's CPU.
 */
export async function ownUser(ctx: AppContext, user: User): Promise<OwnUser> {
  const { rows } = await sqlPool(ctx).query<{
    max_message_id: number | null;
    field_id: number | null;
    value: string | null;
    rendered_value: string | null;
  }>({
    // Named, where allowed: each connection parses and plans it once, then sends only its
    // parameters (a third of the requests per second of this endpoint on the benchmark's box).
    name: ctx.config.databasePreparedStatements ? 'own-user' : undefined,
    text: `SELECT (SELECT max(message_id) FROM user_messages WHERE user_id = $1) AS max_message_id,
                  v.field_id, v.value, v.rendered_value
           FROM (SELECT 1) AS one
           LEFT JOIN custom_profile_field_values v ON v.user_id = $1 AND $2`,
    values: [user.id, !user.isBot],
  });
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
    max_message_id: rows[0].max_message_id ?? -1,
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
