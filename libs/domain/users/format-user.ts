import type { Prisma } from '../../../generated/prisma/client';
import { canSeeDeliveryEmail } from '../permissions/email-visibility';
import { avatarUrlFor } from './avatar';
import { roleFlags } from '../permissions/roles';

export interface ProfileDataEntry {
  value: string;
  rendered_value?: string;
}
export type ProfileData = Record<string, ProfileDataEntry>;

/** A user as `GET /users`, `GET /users/{id}` and `realm_user` events show it. */
export interface ApiUser {
  email: string;
  user_id: number;
  avatar_version: number;
  is_admin: boolean;
  is_owner: boolean;
  is_guest: boolean;
  role: number;
  is_bot: boolean;
  full_name: string;
  timezone: string;
  is_active: boolean;
  date_joined: string;
  delivery_email: string | null;
  avatar_url?: string | null;
  bot_type?: number | null;
  bot_owner_id?: number | null;
  /** Only for the server's own bots (Zulip's cross-realm bots). */
  is_system_bot?: boolean;
  profile_data?: ProfileData;
}

export interface FormatUserOptions {
  viewer: { id: number; role: number };
  clientGravatar: boolean;
  /** Custom profile field values; left out for bots and when the caller did not ask for them. */
  profileData?: ProfileData;
}

/** Zulip prints `date_joined` as an ISO 8601 timestamp to the minute with a UTC offset. */
export function isoMinutes(date: Date): string {
  return `${date.toISOString().slice(0, 16)}+00:00`;
}

/** The columns `formatUser` reads: lists of thousands of users select only these. */
export const USER_FORMAT_FIELDS = {
  id: true,
  realmId: true,
  email: true,
  deliveryEmail: true,
  fullName: true,
  role: true,
  isBot: true,
  isSystemBot: true,
  botType: true,
  botOwnerId: true,
  isActive: true,
  timezone: true,
  dateJoined: true,
  avatarSource: true,
  avatarVersion: true,
  emailAddressVisibility: true,
} as const satisfies Prisma.UserSelect;

export type FormattableUser = Prisma.UserGetPayload<{ select: typeof USER_FORMAT_FIELDS }>;

export function formatUser(user: FormattableUser, options: FormatUserOptions): ApiUser {
  const seesEmail = canSeeDeliveryEmail(options.viewer, user);
  const result: ApiUser = {
    email: user.email,
    user_id: user.id,
    avatar_version: user.avatarVersion,
    ...roleFlags(user),
    role: user.role,
    is_bot: user.isBot,
    full_name: user.fullName,
    timezone: user.timezone,
    is_active: user.isActive,
    date_joined: isoMinutes(user.dateJoined),
    delivery_email: seesEmail ? user.deliveryEmail : null,
    avatar_url: avatarUrlFor(user, options.clientGravatar, seesEmail),
  };
  if (user.isBot) {
    result.bot_type = user.botType;
    result.bot_owner_id = user.botOwnerId;
    if (user.isSystemBot) result.is_system_bot = true;
  } else if (options.profileData) {
    result.profile_data = options.profileData;
  }
  return result;
}
