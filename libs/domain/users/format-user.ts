import type { Prisma } from '../../../generated/prisma/client';
import { canSeeDeliveryEmail } from '../permissions/email-visibility';
import { avatarUrlFor } from './avatar';
import { roleFlags } from '../permissions/roles';
import type { ApiUser, ProfileData, ProfileDataEntry } from '../../protocol/records';

export type { ApiUser, ProfileData, ProfileDataEntry };

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
