import type { Db } from '../../db/client';
import type { User } from '../../../generated/prisma/client';
import { avatarUrl } from './avatar';
import { isoMinutes, type ProfileData } from './format-user';
import { loadProfileData } from './profile-data';
import { Role } from './roles';

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

export async function ownUser(db: Db, user: User): Promise<OwnUser> {
  const [maxMessage, profileData] = await Promise.all([
    db.userMessage.aggregate({ where: { userId: user.id }, _max: { messageId: true } }),
    user.isBot ? null : loadProfileData(db, [user.id]),
  ]);
  const result: OwnUser = {
    user_id: user.id,
    email: user.email,
    delivery_email: user.deliveryEmail,
    full_name: user.fullName,
    avatar_url: avatarUrl(user),
    avatar_version: user.avatarVersion,
    is_admin: user.role <= Role.ADMINISTRATOR,
    is_owner: user.role === Role.OWNER,
    is_guest: user.role === Role.GUEST,
    is_bot: user.isBot,
    is_active: user.isActive,
    role: user.role,
    timezone: user.timezone,
    date_joined: isoMinutes(user.dateJoined),
    max_message_id: maxMessage._max.messageId ?? -1,
  };
  if (profileData) result.profile_data = profileData.get(user.id) ?? {};
  return result;
}
